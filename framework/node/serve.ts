/**
 * Serves an app over HTTP on Node with @hono/node-server (chosen by the
 * benchmark in docs/benchmarks.md), and stops gracefully: no new connections,
 * in-flight requests finish, then `onClose` runs (close the database there).
 * What Node refuses before the app sees it is answered in the envelope
 * (client-error.ts); a request must arrive whole within `requestTimeoutMs`.
 */
import { Server as NetServer, type AddressInfo } from 'node:net'
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2'
import { createServer } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import { CONN_INFO, type ConnInfo } from '../app/conn-info.ts'
import type { App } from '../app/create-app.ts'
import { answerClientError, answerConnect, answeredByServer } from './client-error.ts'
import { encodedDotSegment, encodedDotSegmentAnswer, lacksHost, missingHostAnswer, unmetExpectationAnswer, unreadableRequestAnswer } from './unreadable-request.ts'

/** How long the headers and body of one request may take to arrive; 408 after (`REQUEST_TIMEOUT_MS`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

export interface ServeOptions {
  port?: number
  host?: string
  /**
   * The whole request, headers and body, must arrive within this; then 408
   * and the connection is closed, so a stalled upload holds its buffered body
   * only so long. Default: the app's `REQUEST_TIMEOUT_MS`, else 30 s.
   */
  requestTimeoutMs?: number
  /** Runs once every in-flight request has finished. */
  onClose?: () => Promise<void> | void
}

export interface RunningServer {
  url: string
  port: number
  host: string
  /**
   * Stops accepting, waits for in-flight requests, then runs `onClose`.
   * Idle keep-alive connections are closed at once; with `drain` (another
   * process takes over the port: a rolling reload), they are left to end
   * on their own keep-alive timeout, the one clients were told, so that no
   * client sends a request on a connection closing under it.
   */
  close(options?: { drain?: boolean }): Promise<void>
}

export async function serve(app: Pick<App, 'fetch'> & Partial<Pick<App, 'reject' | 'config'>>, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  const requestTimeout = options.requestTimeoutMs ?? app.config?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  let closing: Promise<void> | undefined
  const background = new BackgroundWork()
  // Node keeps a connection alive after a response that finishes once close()
  // was called, so the stop would wait for the client to hang up (about 4 s
  // with fetch). Responses sent once the stop began therefore carry
  // `Connection: close`; deciding it when the response is ready costs no
  // per-request bookkeeping.
  const markClosing = (outgoing: ServerResponse | Http2ServerResponse) => {
    if (closing !== undefined && !outgoing.headersSent) outgoing.setHeader('Connection', 'close')
  }
  const urlHost = host.includes(':') ? `[${host}]` : host
  // The request @hono/node-server is building: its error handler runs synchronously inside the listener
  // call below, so this names the request whose target or Host made no URL (unreadable-request.ts).
  let building: IncomingMessage | undefined
  // Requests whose Expect Node will not meet (anything but 100-continue, in HTTP/1.1): answered 417 by the app.
  const unmetExpectations = new WeakSet<IncomingMessage | Http2ServerRequest>()
  const listener = getRequestListener(
    // A synchronous answer to a request without a body is handed on as it is: @hono/node-server then
    // writes it without a promise. With a body, its synchronous path drains the unread rest itself once
    // the response is sent, and the tracer would not see how the body ended: that keeps the promise path.
    (request, env) => {
      if (lacksHost(env.incoming)) return missingHostAnswer(app, request, env.incoming)
      if (unmetExpectations.has(env.incoming)) {
        // Whether the body follows is the client's guess: the connection serves no other request.
        if ('shouldKeepAlive' in env.outgoing) env.outgoing.shouldKeepAlive = false
        return unmetExpectationAnswer(app, request, env.incoming)
      }
      const dotSegment = encodedDotSegment(env.incoming.url ?? '/')
      if (dotSegment !== undefined) return encodedDotSegmentAnswer(app, request, env.incoming, dotSegment)
      const answer = app.fetch(request, { [CONN_INFO]: new NodeConnection(env.incoming, env.outgoing, background) })
      if (answer instanceof Promise || !(request.method === 'GET' || request.method === 'HEAD')) {
        return Promise.resolve(answer).then((response) => {
          markClosing(env.outgoing)
          return response
        })
      }
      markClosing(env.outgoing)
      return answer
    },
    { hostname: host, errorHandler: (error) => unreadableRequestAnswer(app, building, error, urlHost) },
  )
  function handle(incoming: IncomingMessage, outgoing: ServerResponse): void {
    building = incoming
    void listener(incoming, outgoing)
    building = undefined
  }
  const server: Server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
      // Node looks for late requests this often: a timeout fires at most a quarter late.
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(requestTimeout / 4))),
      // Node would answer a missing Host with a bare 400: the fetch callback answers it in the envelope.
      requireHostHeader: false,
    },
    handle,
  )
  server.on('clientError', answerClientError(app, urlHost))
  server.on('connect', answerConnect(app, urlHost))
  // Without a listener Node sent 100 Continue at once, and a client that asked (curl does for bodies over 1 MB)
  // sent its whole body before learning it was too large, or not authenticated. The 100 now goes out when the
  // body is first read: an answer given without reading it (413 by Content-Length, 401) comes instead of it.
  server.on('checkContinue', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    incoming.once('resume', () => {
      if (!outgoing.headersSent) outgoing.writeContinue()
    })
    handle(incoming, outgoing)
  })
  // Without a listener Node answered these itself: a bare 417, no envelope, no trace id, no trace.
  server.on('checkExpectation', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    unmetExpectations.add(incoming)
    handle(incoming, outgoing)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 8080, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    host,
    close({ drain = false } = {}) {
      closing ??= new Promise<void>((resolve, reject) => {
        let sweep: ReturnType<typeof setInterval> | undefined
        const done = (error?: Error) => {
          clearInterval(sweep)
          if (error) reject(error)
          else resolve()
        }
        if (drain) {
          // http.Server's own close() closes idle connections (Node >= 19); net.Server's only stops accepting.
          NetServer.prototype.close.call(server, done)
          return
        }
        // Connections still reading a request body answered early (413) turn idle later.
        sweep = setInterval(() => server.closeIdleConnections(), 100)
        server.close(done)
        server.closeIdleConnections()
      })
        // Work the requests left running (a mail sent after its answer) still needs the app's database and mailer.
        .then(() => background.settled(BACKGROUND_WAIT_MS))
        .then(() => options.onClose?.())
      return closing
    },
  }
}

/**
 * What the app learns of the connection (`ConnInfo`): the peer address,
 * Node's parsed request headers (which the tracer copies instead of building
 * a Headers object), and when the response is done.
 */
class NodeConnection implements ConnInfo {
  readonly remoteAddress: string | undefined
  readonly headers: IncomingHttpHeaders

  constructor(
    private readonly incoming: IncomingMessage | Http2ServerRequest,
    private readonly outgoing: ServerResponse | Http2ServerResponse,
    private readonly background: BackgroundWork,
  ) {
    this.remoteAddress = incoming.socket.remoteAddress
    this.headers = incoming.headers
  }

  /** The server answered this request itself (client-error.ts): the app's answer is not traced. */
  get answeredByServer(): boolean {
    return answeredByServer(this.incoming)
  }

  waitUntil(task: Promise<unknown>): void {
    this.background.add(task)
  }

  /**
   * Resolves once the response is sent or the connection closed, and the
   * request body has been read to its end or never will be (its connection
   * closed). The tracer reads a body the app left unread
   * only until then: a client that hangs up without sending it, after an
   * early answer (401, 404, 429), would otherwise keep its trace pending for
   * ever.
   */
  responseDone(): Promise<void> {
    const { incoming, outgoing } = this
    return new Promise((resolve) => {
      const done = () => resolve()
      // After the response, the body still coming is read to its end (the client may finish sending, and the
      // trace counts it): done once it ends or its connection closes (the adapter closes one whose rest still
      // comes 500 ms after the answer). It was done at once, and the trace said only what came before the answer.
      // A client gone mid-body closes the socket without ending the request, so the socket is watched too
      // (HTTP/1 only: an HTTP/2 socket carries other streams; the adapter closes this one's stream at once).
      const afterResponse = () => {
        const socket = 'stream' in incoming ? undefined : incoming.socket
        if (incoming.readableEnded || incoming.destroyed || socket?.destroyed === true) return done()
        const settle = () => {
          incoming.off('end', settle)
          incoming.off('close', settle)
          socket?.off('close', settle)
          done()
        }
        incoming.once('end', settle)
        incoming.once('close', settle)
        socket?.once('close', settle)
      }
      if (outgoing.closed) afterResponse()
      else outgoing.once('close', afterResponse)
    })
  }
}

/**
 * How long a graceful stop waits for work left running after responses: a
 * mail server that does not answer must not keep the process from stopping.
 */
const BACKGROUND_WAIT_MS = 10_000

/** Work that outlives its response (`ConnInfo.waitUntil`), until it settles. */
class BackgroundWork {
  private readonly running = new Set<Promise<unknown>>()

  add(task: Promise<unknown>): void {
    const forget = (): void => void this.running.delete(tracked)
    const tracked: Promise<void> = task.then(forget, forget)
    this.running.add(tracked)
  }

  /** Resolves once every task added so far settled, or after `limitMs`. */
  async settled(limitMs: number): Promise<void> {
    if (this.running.size === 0) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)))
    await Promise.race([Promise.allSettled([...this.running]), limit])
    clearTimeout(timer)
  }
}
