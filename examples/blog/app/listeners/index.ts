/** The app's listeners: svc registers this list when it loads the app (`svc make:listener` adds to it). */
import mailAuthor from './mail-author.ts'

export default [mailAuthor]
