/** One HTTP exchange of `svc t`: sent with fetch, timed until the whole body is read. */
import { TRACE_HEADER } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'

export interface OutgoingRequest {
  method: string
  url: string
  headers: Array<[string, string]>
  /** Sent as JSON (Content-Type: application/json) unless null. */
  json: unknown
}

export interface Exchange {
  status: number
  statusText: string
  /** From the first byte sent to the last byte of the body read. */
  durationMs: number
  traceId: string | null
  headers: Record<string, string>
  /** The parsed JSON, else the text; null when empty. */
  body: unknown
}

export async function send(request: OutgoingRequest, signal?: AbortSignal): Promise<Exchange> {
  const headers = new Headers(request.headers)
  if (!headers.has('accept')) headers.set('accept', 'application/json')
  const hasBody = request.json !== null
  if (hasBody && !headers.has('content-type')) headers.set('content-type', 'application/json')
  const started = performance.now()
  let response: Response
  let text: string
  try {
    response = await fetch(request.url, { method: request.method, headers, body: hasBody ? JSON.stringify(request.json) : undefined, redirect: 'manual', signal })
    text = await response.text()
  } catch (error) {
    throw unreachable(request.url, error)
  }
  const durationMs = performance.now() - started
  let body: unknown = text === '' ? null : text
  if (text !== '' && /json/i.test(response.headers.get('content-type') ?? '')) {
    try {
      body = JSON.parse(text)
    } catch {
      // a body that says JSON and is not: shown as the text it is
    }
  }
  return {
    status: response.status,
    statusText: response.statusText,
    durationMs,
    traceId: response.headers.get(TRACE_HEADER),
    headers: Object.fromEntries(response.headers),
    body,
  }
}

function unreachable(url: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const origin = new URL(url).origin
  if (cause?.code === 'ECONNREFUSED') {
    return new CliError('E_CONNECT', `Nothing answers at ${origin} (connection refused)`, {
      hint: 'start the app (svc serve) or point at it with --url=http://host:port',
    })
  }
  return new CliError('E_CONNECT', `Cannot reach ${origin}: ${cause?.message ?? (error as Error).message}`, { hint: 'check --url (or HOST and PORT in .env)', cause: error })
}
