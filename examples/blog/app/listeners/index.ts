/** The app's event listeners: svc registers them when it loads the app. `svc make:listener` adds each new one. */
import type { Listener } from 'svc'
import mailAuthor from './mail-author.ts'

export default [mailAuthor] satisfies Listener[]
