import { appPaths } from '../paths.ts'
import { defineTemplate } from '../template.ts'

declare module '../template.ts' {
  interface TemplateOptions {
    middleware: Record<string, never>
  }
}

/** `app/middleware/<name>.ts`: a factory returning a named middleware function (docs/routing.md). */
export default defineTemplate('middleware', ({ names }) => {
  const name = names.base.camel
  return {
    path: appPaths.middleware(names),
    contents: `import type { Middleware } from 'svc'

export interface ${names.base.pascal}Options {
  /** The response header it sets (an example to replace). */
  header?: string
}

/**
 * Runs around the handlers of the routes it is attached to:
 * \`.middleware(${name}())\` on a route, \`{ middleware: [${name}()] }\` on a group,
 * or every request from app/kernel.ts.
 */
export function ${name}(options: ${names.base.pascal}Options = {}): Middleware {
  const { header } = { header: 'X-${names.base.pascal}', ...options }
  return async function ${name}(c, next) {
    // Before the handler: c.request, c.params, c.user (after auth)... Throw an HttpError to answer early.
    const response = await next()
    // After it: the response is the handler's (or the error's) answer.
    response.headers.set(header, c.traceId)
    return response
  }
}
`,
  }
})
