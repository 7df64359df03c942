import type { Names } from '../names.ts'
import { appPaths, importPath } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export interface ListenerOptions {
  /** The event it listens to. */
  event: Names
  /** `queued: true` (make:listener --queued, as artisan's): emit() hands it to the queue. */
  queued?: boolean
}

declare module '../template.ts' {
  interface TemplateOptions {
    listener: ListenerOptions
  }
}

/**
 * `app/listeners/<name>.ts`: what runs when its event is emitted. make:listener
 * adds it to app/listeners/index.ts, which svc registers when it loads the app.
 */
export default defineTemplate('listener', ({ names, options }) => {
  const path = appPaths.listener(names)
  const event = options.event.base.pascal
  return {
    path,
    contents: `/** Runs when ${event} is emitted (registered through app/listeners/index.ts). */
import { defineListener } from 'svc'
import { ${event} } from '${importPath(path, appPaths.event(options.event))}'

export default defineListener(${event}, {
  /** Unique in the app: a queue finds the listener again by it. */
  name: '${[...names.folders, names.base.kebab].join('/')}',
  /** true: emit() queues it and \`svc queue:work\` runs it (at once with QUEUE_CONNECTION=sync); the event arrives as JSON. */
  queued: ${options.queued === true},
  // The second argument has the app's services: async handle(event, { db, mailer, queue }).
  async handle(event) {
    console.info('${event}', event)
  },
})
`,
  }
})
