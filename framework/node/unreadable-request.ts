/**
 * Requests Node's parser accepts but that make no URL: an HTTP/1.1 request
 * without Host (RFC 9112 section 3.2: a 400), a target that is not a path
 * (`OPTIONS *`, `ftp://x/`, a backslash in the path), a Host that is not a
 * host name. Node answered the first, and @hono/node-server the others, with
 * a bare 400 (no body, no X-Service-Trace-Id, no trace) before the app saw
 * them; here each is the envelope, traced, as client-error.ts answers what
 * the parser refuses. Also a target the URL parser reads otherwise than a
 * proxy would: a dot segment written percent-encoded.
 */
import type { IncomingMessage } from 'node:http'
import type { Http2ServerRequest } from 'node:http2'
import { RequestError } from '@hono/node-server'
import { HttpError } from '../http/http-error.ts'
import { refusalAnswer, requestNamed, type AppLike } from './client-error.ts'

/** An HTTP/1.1 request without Host: Node's own check (`requireHostHeader`) is off, so that it is answered here. */
export function lacksHost(incoming: IncomingMessage | Http2ServerRequest): boolean {
  return incoming.headers.host === undefined && incoming.httpVersion === '1.1'
}

/** The 400 to an HTTP/1.1 request without Host; `request` is what the adapter built with the server's own host. */
export function missingHostAnswer(app: AppLike, request: Request, incoming: IncomingMessage | Http2ServerRequest): Response {
  return refusalAnswer(app, request, new HttpError(400, 'Bad Request: an HTTP/1.1 request needs a Host header'), incoming.socket.remoteAddress)
}

/**
 * The 417 to an HTTP/1.1 request whose `Expect` asks for something other than
 * `100-continue` (RFC 9110 section 10.1.1), which Node hands to its
 * `checkExpectation` listener instead of answering it bare.
 */
export function unmetExpectationAnswer(app: AppLike, request: Request, incoming: IncomingMessage | Http2ServerRequest): Response {
  return refusalAnswer(app, request, new HttpError(417, 'Expectation Failed: the only expectation served is Expect: 100-continue'), incoming.socket.remoteAddress)
}

/**
 * The answer when @hono/node-server could not build a Request (`RequestError`:
 * the target or Host makes no URL), or, never expected, the fetch callback
 * threw. `incoming` is the request being handled, undefined if unknown.
 */
export function unreadableRequestAnswer(app: AppLike, incoming: IncomingMessage | undefined, error: unknown, host: string): Response {
  const rejection =
    error instanceof RequestError
      ? new HttpError(400, /host/i.test(error.message) || !makesUrl(incoming?.headers.host) ? 'Bad Request: the Host header is not a host name' : 'Bad Request: the request target is not a path')
      : new HttpError(500, 'Internal Server Error')
  return refusalAnswer(app, requestNamed(incoming?.method ?? 'GET', incoming?.url ?? '/', host), rejection, incoming?.socket.remoteAddress)
}

/**
 * Whether a Host header value makes a URL. The adapter's error for one that
 * does not (`x:99999`, `a b`) is the same "Invalid URL" as for a target that
 * is not a path, which is what the 400 said: the Host is looked at itself.
 * No Host (HTTP/1.0, HTTP/2's `:authority`) is not this one's fault.
 */
function makesUrl(host: string | undefined): boolean {
  if (host === undefined) return true
  try {
    new URL(`http://${host}/`)
    return true
  } catch {
    return false
  }
}

/** A path segment that is `.` or `..` with at least one dot percent-encoded (`%2e`, `.%2E`, `%2E%2e`). */
const ENCODED_DOT_SEGMENT = /(?:^|\/)(%2e%2e|%2e\.|\.%2e|%2e)(?=\/|$)/i

/**
 * The first dot segment `target`'s path writes encoded, as written; undefined
 * when there is none. The URL parser (WHATWG, which the adapter uses) reads
 * `%2E%2E` as `..` and removes it with the segment before, so
 * `/api/v1/posts/%2E%2E/%2E%2E/auth/me` reached `/api/auth/me`; a proxy that
 * filters paths, following RFC 3986, reads it as a name. The two must not
 * disagree on which route a request is for, so it is refused.
 */
export function encodedDotSegment(target: string): string | undefined {
  // Every request passes here: most targets have no escape at all.
  if (!target.includes('%')) return undefined
  const end = target.search(/[?#]/)
  const match = ENCODED_DOT_SEGMENT.exec(end === -1 ? target : target.slice(0, end))
  return match?.[1]
}

/** The 400 to a target with an encoded dot segment; `request` is what the adapter built (its path already resolved). */
export function encodedDotSegmentAnswer(app: AppLike, request: Request, incoming: IncomingMessage | Http2ServerRequest, segment: string): Response {
  const rejection = new HttpError(
    400,
    `Bad Request: the path holds a dot segment written encoded (${segment}), which a proxy reads as a name and a URL parser as "${segment.length > 3 ? '..' : '.'}"; send the path with its dot segments resolved`,
  )
  return refusalAnswer(app, request, rejection, incoming.socket.remoteAddress)
}
