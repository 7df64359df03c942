/**
 * The development server's request log: one line per request on stdout,
 * `GET /api/v1/posts?page=2 200 3.1 ms svc_…`, written once the app has
 * answered (the time is the app's, not the transfer's). Query parameters
 * the trace redacts (`?token=…`, TRACE_REDACT_FIELDS) are redacted here too:
 * a terminal's scrollback is shared and pasted as readily as a trace.
 */
import { TRACE_HEADER, type App } from '../../framework/index.ts'
import { Redactor, type TraceConfig } from '../../framework/trace/index.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, type Colors } from '../output/print.ts'

export function withRequestLog<A extends Pick<App, 'fetch'>>(app: A, io: CommandIO, redact: Pick<TraceConfig, 'redactHeaders' | 'redactFields'>): A {
  const color = colors(io)
  const redactor = new Redactor(redact.redactHeaders, redact.redactFields)
  return {
    ...app,
    async fetch(request: Request, env?: unknown, executionCtx?: Parameters<App['fetch']>[2]) {
      const started = performance.now()
      const response = await app.fetch(request, env, executionCtx)
      io.stdout.write(`${requestLine(request, response, performance.now() - started, color, redactor)}\n`)
      redactor.forget()
      return response
    },
  }
}

export function requestLine(request: Request, response: Response, ms: number, color: Colors, redactor: Redactor): string {
  const url = new URL(request.url)
  const query = redactor.queryString(url.search)
  const status = response.status
  const paint = status >= 500 ? color.red : status >= 400 ? color.yellow : color.green
  const traceId = response.headers.get(TRACE_HEADER) ?? '-'
  return `${request.method} ${url.pathname}${query === '' ? '' : `?${query}`} ${paint(String(status))} ${ms.toFixed(1)} ms ${color.dim(traceId)}`
}
