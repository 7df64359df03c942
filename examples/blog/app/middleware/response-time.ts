import type { Middleware } from 'svc'

/** Adds `Server-Timing: app;dur=<ms>` to every response of the routes it guards. */
export const responseTime: Middleware = async function responseTime(c, next) {
  const started = performance.now()
  const response = await next()
  const marked = new Response(response.body, response)
  marked.headers.set('Server-Timing', `app;dur=${(performance.now() - started).toFixed(2)}`)
  return marked
}
