import { appPaths } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export type EventOptions = Record<string, never>

declare module '../template.ts' {
  interface TemplateOptions {
    event: EventOptions
  }
}

/** `app/events/<name>.ts`: an event class; `await emit(new OrderShipped(...))` runs its listeners. */
export default defineTemplate('event', ({ names }) => ({
  path: appPaths.event(names),
  contents: `/**
 * Emitted with \`await emit(new ${names.base.pascal}(id), c)\` (import emit from 'svc'; \`c\`, the request's
 * context, puts the event in its trace); its listeners
 * (\`svc make:listener <Name> --event=${names.input}\`) run then. Keep its fields plain data:
 * a queued listener gets it back from JSON.
 * Emitted after a write, it can fail when the write is done (a queued listener not handed on: the
 * queue's tables missing, a busy database): then undo the write and rethrow, so that the 500 means
 * nothing was stored and a retry does not store it twice (docs/events.md, "Write, then emit").
 */
export class ${names.base.pascal} {
  constructor(readonly id: number) {}
}
`,
}))
