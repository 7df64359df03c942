import { appPaths } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export type MiddlewareOptions = Record<string, never>

declare module '../template.ts' {
  interface TemplateOptions {
    middleware: MiddlewareOptions
  }
}

/** `app/middleware/<name>.ts`: a factory returning a named middleware function (docs/routing.md). */
export default defineTemplate('middleware', ({ names }) => {
  const name = names.base.camel
  const header = `X-${names.base.words.split(' ').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('-')}`
  return {
    path: appPaths.middleware(names),
    contents: `import type { Middleware } from 'svc'

export interface ${names.base.pascal}Options {
  /** The response header it sets: how long the handler took (an example to replace). */
  header?: string
}

/**
 * Runs around the handlers of the routes it is attached to:
 * \`.middleware(${name}())\` on a route, \`{ middleware: [${name}()] }\` on a group,
 * or every request from app/kernel.ts.
 */
export function ${name}(options: ${names.base.pascal}Options = {}): Middleware {
  const { header } = { header: '${header}', ...options }
  return async function ${name}(c, next) {
    // Before the handler: c.request, c.params, c.user (after auth)... Throw an HttpError to answer early.
    const started = performance.now()
    const response = await next()
    // After it: the handler's (or the error's) response. A fetched response's headers are read-only, hence the copy.
    const answered = new Response(response.body, response)
    answered.headers.set(header, \`\${(performance.now() - started).toFixed(1)}ms\`)
    return answered
  }
}
`,
  }
})
