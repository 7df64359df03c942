import type { ExecutionContextLike } from '../context/context.ts'

/**
 * What the runtime adapter knows about the connection (the socket peer's
 * address, the headers as the runtime parsed them), handed to the app as a
 * typed value under a symbol, never as keys read out of `env`: on Workers,
 * `env` holds the app's own bindings, and a binding that happens to be named
 * `clientAddress` must not pass for the peer. A symbol cannot be a binding name.
 *
 * @example
 * // an adapter:
 * app.fetch(request, { [CONN_INFO]: { remoteAddress: socket.remoteAddress } })
 * // a runtime whose platform says it in a header (Workers):
 * createApp({ connInfo: (request) => ({ remoteAddress: request.headers.get('cf-connecting-ip') ?? undefined }) })
 */

/** The key under which an adapter passes the connection in the fetch handler's `env` (registered, so two copies of svc agree). */
export const CONN_INFO: unique symbol = Symbol.for('svc.connInfo') as never

export interface ConnInfo {
  /** The socket peer's address as the runtime saw it (IPv4, IPv6, or IPv4-mapped IPv6). */
  remoteAddress?: string
  /**
   * The request's headers as the runtime parsed them, lower-case names
   * (Node's `IncomingMessage.headers`): the tracer copies these instead of
   * building a `Headers` object per request.
   */
  headers?: Readonly<Record<string, string | string[] | undefined>>
  /**
   * Resolves once the response is sent or the connection closed (svc's Node
   * adapter): the tracer reads a body the app left unread only until then,
   * so that a client that hangs up without sending it cannot keep its trace
   * pending (docs/traces.md, "Capture").
   */
  responseDone?: () => Promise<void>
  /**
   * Keeps work that outlives the response (a mail sent after the answer)
   * part of the server's life: svc's Node adapter lets it finish before a
   * graceful stop closes the app's database and mailer, as Workers'
   * `waitUntil` does. See `afterResponse`.
   */
  waitUntil?: (task: Promise<unknown>) => void
  /**
   * True once the server answered the request itself while the app was at
   * work on it (svc's Node adapter: its body stalled past
   * `REQUEST_TIMEOUT_MS`, or broke, and the app was not reading it). The
   * server's answer is the one the client got, and it is traced; the app's,
   * which can no longer go out, is not.
   */
  readonly answeredByServer?: boolean
}

/** An `env` that carries the connection. */
export interface ConnInfoEnv {
  readonly [CONN_INFO]?: ConnInfo
}

/** Where an app's connection info comes from: `createApp({ connInfo })`, one per adapter. */
export type ConnInfoReader = (request: Request, env: unknown) => ConnInfo | undefined

/** The default reader: the value an adapter (svc's Node `serve`, the test client) put under `CONN_INFO`. */
export function connInfoFromEnv(_request: Request, env: unknown): ConnInfo | undefined {
  return typeof env === 'object' && env !== null ? (env as ConnInfoEnv)[CONN_INFO] : undefined
}

/**
 * Lets `task` finish after the response: Workers' `waitUntil` where there is
 * one, else the adapter's (`ConnInfo.waitUntil`: svc's Node `serve` waits for
 * it before a graceful stop closes the app). Elsewhere it runs unwatched.
 */
export function afterResponse(c: { readonly executionCtx: ExecutionContextLike | undefined; readonly connInfo: ConnInfo | undefined }, task: Promise<unknown>): void {
  if (c.executionCtx !== undefined) c.executionCtx.waitUntil(task)
  else c.connInfo?.waitUntil?.(task)
}
