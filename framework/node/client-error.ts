/**
 * What Node's HTTP parser refuses before a request reaches the app (bad
 * framing, a NUL in the request line, headers over the size limit, a request
 * that did not arrive in time) answered like everything else: the JSON
 * envelope with `X-Service-Trace-Id`, traced through the app. Node's own
 * answer is a bare `HTTP/1.1 400 Bad Request` with no body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { CONN_INFO } from '../app/conn-info.ts'
import type { App } from '../app/create-app.ts'
import { HttpError } from '../http/http-error.ts'
import { createTraceId } from '../trace/trace-id.ts'
import { errorResponse, knownResponseText, TRACE_HEADER } from '../http/response.ts'

type ParserError = Error & { code?: string; rawPacket?: Buffer }

/** The status and message for a parser error, or undefined when the client is gone (nothing to answer). */
export function rejectionFor(error: ParserError): HttpError | undefined {
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE':
    // The client closed its side mid-request (often after its request was already answered, the rest of the body unsent): nobody waits for an answer.
    case 'HPE_INVALID_EOF_STATE':
      return undefined
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError(431, 'Request Header Fields Too Large')
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError(408, 'Request Timeout: the request did not arrive in time')
    default:
      return new HttpError(400, 'Bad Request: the request is not valid HTTP')
  }
}

/**
 * What can be read of the refused request from the bytes Node kept: its
 * method and target when the request line is readable, else the marker
 * `- /` (`unreadRequest`). Read as UTF-8: a client that sent a raw `é` in
 * its path (which Node refuses) meant the path a URL writes as `%C3%A9`, as
 * its trace should say.
 */
export function refusedRequest(error: ParserError, host: string): Request {
  const line = error.rawPacket?.subarray(0, 8192).toString('utf8').split('\r\n', 1)[0] ?? ''
  const match = /^([A-Z]{1,16}) (\/[^ ]*) HTTP\/1\.[01]$/.exec(line)
  return match === null ? unreadRequest(host) : requestNamed(match[1]!, match[2]!, host)
}

/** The method a trace gives a request whose request line could not be read, as access logs write it. */
export const UNREAD_METHOD = '-'

/**
 * A request of which nothing could be read: headers that never finished
 * (slowloris: Node's headers timeout keeps no byte of them; the parser holds
 * the request line out of reach of JavaScript) or bytes that are not HTTP.
 * Traced as `- /`, never as `GET /`, which a real request to `/` also is.
 */
export function unreadRequest(host: string): Request {
  return new Request(`http://${host}/`, { method: UNREAD_METHOD })
}

/**
 * A Request for the trace of a refused request: its method and target when
 * a Request can carry them, a target that is not a path (`*`, `ftp://x/`)
 * read as `/`, and `GET /` when nothing else can be built.
 */
export function requestNamed(method: string, target: string, host: string): Request {
  try {
    return new Request(new URL(target.startsWith('/') ? target : '/', `http://${host}`), { method })
  } catch {
    // A method (CONNECT) or target a Request cannot carry.
    return new Request(`http://${host}/`)
  }
}

/** The app's answer to a request refused before it could see it: `app.reject`, or the bare envelope for an app without one. */
export function refusalAnswer(app: AppLike, request: Request, rejection: HttpError, remoteAddress: string | undefined): Response {
  return (
    app.reject?.(request, rejection, { [CONN_INFO]: { remoteAddress } }) ??
    errorResponse(rejection, { [TRACE_HEADER]: createTraceId(app.config?.tracePrefix ?? 'svc') }, false)
  )
}

export type AppLike = Pick<App, 'fetch'> & Partial<Pick<App, 'reject' | 'config'>>

/** Node's `clientError` listener for `app`. */
export function answerClientError(app: AppLike, host: string): (error: ParserError, socket: Socket) => void {
  return (error, socket) => {
    const rejection = rejectionFor(error)
    // As Node does: answer only when no response of this connection has begun.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (rejection === undefined || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy()
      return
    }
    if (inFlight != null && rejection.status === 408 && handTimeoutToApp(inFlight, rejection)) return
    if (inFlight != null) {
      // The app has this request and is still at work on it (it does not read the body, which stalled or broke):
      // its answer can no longer go out, so it is not traced; this one, which the client gets, is, named as the
      // request was. It was traced twice: `GET /` with this status, and the app's answer that never left.
      ANSWERED_BY_SERVER.add(inFlight.req)
      writeRefusal(socket, refusalAnswer(app, requestAsReceived(inFlight.req, host), rejection, socket.remoteAddress), rejection)
      return
    }
    writeRefusal(socket, refusalAnswer(app, refusedRequest(error, host), rejection, socket.remoteAddress), rejection)
  }
}

/** Requests the server answered itself while the app had them: the app's own answer is not traced (`ConnInfo.answeredByServer`). */
const ANSWERED_BY_SERVER = new WeakSet<object>()

/** Whether the server answered `incoming` itself, over the app's head (a body that stalled while the app did not read it). */
export function answeredByServer(incoming: object): boolean {
  return ANSWERED_BY_SERVER.has(incoming)
}

/** The trace's Request for a request whose head Node parsed: its method, target and headers (without them if a Request cannot carry them). */
function requestAsReceived(incoming: IncomingMessage, host: string): Request {
  const method = incoming.method ?? 'GET'
  const target = incoming.url ?? '/'
  try {
    const headers = new Headers()
    for (let i = 0; i < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!)
    return new Request(new URL(target.startsWith('/') ? target : '/', `http://${host}`), { method, headers })
  } catch {
    return requestNamed(method, target, host)
  }
}

/** How long a handler whose body failed with the 408 has to answer before its connection is closed anyway. */
export const TIMED_OUT_ANSWER_MS = 5000

/**
 * A request whose body did not arrive in time while the app was reading it:
 * the read fails with the 408 (read-json-body.ts keeps an HttpError it is
 * given), and the app answers it, so the request is traced once, as what it
 * was (method, path, headers, the part of the body that came), with the
 * status the client gets. Answered here instead, it was traced twice: a
 * `GET /` 408 (Node keeps no request line once the headers are parsed) and
 * the app's 400 "the connection closed before the body was complete", which
 * never went out. The error is emitted, not passed to `destroy()`: destroying
 * an unfinished request destroys its socket, and the answer with it. False
 * when nobody reads the body (the handler has not got to it), or nothing
 * listens for its errors: answered here, as before.
 */
function handTimeoutToApp(response: ServerResponse, rejection: HttpError): boolean {
  const request = response.req
  // Read, and by a reader that hears errors: an 'error' emitted with no listener would throw here, in the server.
  if (request.complete || request.listenerCount('data') === 0 || request.listenerCount('error') === 0) return false
  // The rest of the body may still come: the connection cannot serve another request.
  response.shouldKeepAlive = false
  request.emit('error', rejection)
  setTimeout(() => {
    if (!response.headersSent) response.socket?.destroy()
  }, TIMED_OUT_ANSWER_MS).unref()
  return true
}

/**
 * Node's `connect` listener: a CONNECT asks for a tunnel, which only a proxy
 * opens. Without a listener Node closed the socket without an answer. 501,
 * not 405: RFC 9110 makes 501 the answer to a method the server supports for
 * no resource, and a 405 must list the target's methods in Allow, which an
 * authority (`example.com:443`) does not have.
 */
export function answerConnect(app: AppLike, host: string): (request: IncomingMessage, socket: Duplex) => void {
  return (request, socket) => {
    const rejection = new HttpError(501, 'Not Implemented: CONNECT is for proxies, and this server is not one')
    // A Request cannot carry CONNECT: the trace names `GET /`, marked refused before the app.
    writeRefusal(socket as Socket, refusalAnswer(app, requestNamed('GET', '/', host), rejection, request.socket.remoteAddress), rejection)
  }
}

/** Writes `response` on a socket Node's HTTP server no longer answers on, and closes it. */
function writeRefusal(socket: Socket, response: Response, rejection: HttpError): void {
  const body = knownResponseText(response) ?? JSON.stringify({ success: false, error: rejection.message, code: rejection.status })
  const head = [`HTTP/1.1 ${response.status} ${statusText(response.status)}`]
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'connection') head.push(`${name}: ${value}`)
  })
  head.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close')
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`)
  // A client that never reads its answer does not keep the socket.
  socket.setTimeout(5000, () => socket.destroy())
}

function statusText(status: number): string {
  return { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large', 501: 'Not Implemented' }[status] ?? 'Error'
}
