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
 */
export class ${names.base.pascal} {
  constructor(readonly id: number) {}
}
`,
}))
