/**
 * Listening before the app is built, as `svc serve` does: with `APP_URL`
 * unset, the links in mails point where the server listens, and on port 0
 * (`PORT=0`) that address is known only once it listens. An entry file for
 * Node, Deno or Bun serves a pending app, builds the real one with the served
 * address, and hands it over; a request arriving in between waits for it.
 * Runtime-neutral: the adapters' `serve` takes the pending app as any app.
 *
 * @example
 * const pending = pendingApp()
 * const server = serve(pending, { port: config.port, host: config.host })
 * const app = await buildApp(resolveConfig(withServedUrl(env, server)))
 * pending.ready(app)
 */
import { text } from '../config/env-readers.ts'
import type { EnvRecord } from '../config/config.ts'
import type { App } from './create-app.ts'

/** What a pending app hands requests to: an app, or anything with its `fetch` (and its `reject`, when it has one). */
export type ServedApp = Pick<App, 'fetch'> & Partial<Pick<App, 'reject'>>

export interface PendingApp extends Pick<App, 'fetch'> {
  /**
   * The built app's, once it is built: Node's adapter answers a request its HTTP parser refused (a 400, 408, 431)
   * with it, in the app's envelope and trace; before, with its own envelope.
   */
  readonly reject: App['reject'] | undefined
  /** The built app: the requests that waited, and every later one, go to it. */
  ready(app: ServedApp): void
  /** The app could not be built: the requests that waited fail (the adapter answers 500). */
  failed(error: unknown): void
}

export function pendingApp(): PendingApp {
  let built: ServedApp | undefined
  let ready!: (app: Pick<App, 'fetch'>) => void
  let failed!: (error: unknown) => void
  const loading = new Promise<Pick<App, 'fetch'>>((resolve, reject) => {
    ready = resolve
    failed = reject
  })
  // Nobody may be waiting when it fails: the entry reports the error itself.
  loading.catch(() => undefined)
  return {
    fetch: (request, env, executionCtx) =>
      built !== undefined ? built.fetch(request, env, executionCtx) : loading.then((app) => app.fetch(request, env, executionCtx)),
    get reject() {
      return built?.reject
    },
    ready(app) {
      built = app
      ready(app)
    },
    failed,
  }
}

/**
 * `vars` with `APP_URL` set to where `server` listens, unless it is set (blank is unset): the app's mail links
 * then name the port the server got. A wildcard bind (`0.0.0.0`, `::`) is `http://localhost:<port>`.
 */
export function withServedUrl(vars: EnvRecord, server: { host: string; port: number }): EnvRecord {
  return text(vars, 'APP_URL') === undefined ? { ...vars, APP_URL: servedUrl(server.host, server.port) } : vars
}

/** The URL a client on this machine reaches a server listening on `host`:`port` at. */
export function servedUrl(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '::') return `http://localhost:${port}`
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}
