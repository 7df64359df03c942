/** `svc t`: the request from its words, and the views of its answers. */
import type { AppConfig } from '../../framework/index.ts'
import { closestNames } from '../command/suggest.ts'
import type { ApiTestJson, ApiTestLoopJson } from '../contract/devtools.ts'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine, type Colors } from '../output/print.ts'
import { latencies, round } from '../trace/stats.ts'
import { formatMs, statusColor } from '../trace/summary.ts'
import { parseRequestItems } from './request-items.ts'
import type { Exchange, OutgoingRequest } from './send.ts'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** Where the app listens by its own settings: HOST and PORT (an address that binds every interface is reached on loopback). */
export function appBaseUrl(config: AppConfig): string {
  if (config.port === 0) throw new CliError('E_BAD_OPTION', 'PORT=0 picks a free port at start-up: svc t cannot guess it', { hint: 'pass the printed address: --url=http://127.0.0.1:<port>' })
  const host = config.host === '' || config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`
}

/** `POST /api/v1/posts title=Hi`, `/api/v1/posts` (GET), `/api/v1/posts title=Hi` (POST), or a full URL in place of the path. */
export function buildRequest(base: string, methodWord: string, pathWord: string | undefined, itemWords: readonly string[]): OutgoingRequest {
  let method: string | undefined = methodWord.toUpperCase()
  let path = pathWord
  let words = [...itemWords]
  if (!METHODS.includes(method)) {
    if (!/^(\/|https?:\/\/)/i.test(methodWord)) {
      const [closest] = closestNames(method, METHODS, 1)
      throw new CliError('E_BAD_ARGUMENTS', `Unknown method "${methodWord}"`, { hint: closest === undefined ? `one of ${METHODS.join(', ')}` : `did you mean ${closest}?` })
    }
    // No method given: the first word is the path.
    words = path === undefined ? words : [path, ...words]
    path = methodWord
    method = undefined
  }
  if (path === undefined) throw new CliError('E_BAD_ARGUMENTS', 'Missing the path', { hint: `svc t ${method ?? 'GET'} /api/...` })
  const items = parseRequestItems(words)
  method ??= items.body === null ? 'GET' : 'POST'
  if ((method === 'GET' || method === 'HEAD') && items.body !== null) {
    throw new CliError('E_BAD_ARGUMENTS', `${method} sends no body, but fields were given (${Object.keys(items.body).join(', ')})`, {
      hint: 'query parameters are written name==value',
    })
  }
  const url = new URL(/^https?:\/\//i.test(path) ? path : `${base}${path.startsWith('/') ? '' : '/'}${path}`)
  for (const [name, value] of items.query) url.searchParams.append(name, value)
  return { method, url: url.href, headers: items.headers, json: items.body }
}

export function requestJson(request: OutgoingRequest, as: string | undefined, answer: Exchange): ApiTestJson {
  return {
    request: { method: request.method, url: request.url, as: as ?? null },
    status: answer.status,
    status_text: answer.statusText,
    duration_ms: round(answer.durationMs),
    trace_id: answer.traceId,
    headers: answer.headers,
    body: answer.body,
  }
}

/** `201 Created  4.21 ms  svc_...`, then the body, pretty-printed. */
export function printExchange(io: CommandIO, request: OutgoingRequest, as: string | undefined, answer: Exchange): void {
  const color = colors(io)
  const status = statusColor(answer.status, color)(`${answer.status} ${answer.statusText}`.trim())
  const who = as === undefined ? '' : color.dim(`  as ${as}`)
  printLine(io, `${color.bold(`${request.method} ${request.url}`)}${who}`)
  printLine(io, `${status}  ${formatMs(answer.durationMs)}  ${answer.traceId === null ? color.dim('no trace id') : color.cyan(answer.traceId)}`)
  if (answer.body !== null) printLine(io, typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body, null, 2))
}

export function loopStats(times: readonly number[]): Omit<ApiTestLoopJson['loop'], 'statuses'> {
  const spread = latencies(times)
  return { count: times.length, min_ms: spread.min, median_ms: spread.p50, p95_ms: spread.p95, max_ms: spread.max, mean_ms: spread.mean }
}

export function printLoop(io: CommandIO, result: ApiTestLoopJson, color: Colors): void {
  const { loop } = result
  const who = result.request.as === null ? '' : color.dim(`  as ${result.request.as}`)
  printLine(io, `${color.bold(`${result.request.method} ${result.request.url}`)} x ${loop.count}${who}`)
  const statuses = Object.entries(loop.statuses).map(([status, count]) => statusColor(Number(status), color)(`${status} x ${count}`))
  printLine(io, `statuses  ${statuses.join(', ')}`)
  printLine(io, `min ${formatMs(loop.min_ms)}  median ${formatMs(loop.median_ms)}  p95 ${formatMs(loop.p95_ms)}  max ${formatMs(loop.max_ms)}  ${color.dim(`(mean ${formatMs(loop.mean_ms)})`)}`)
  if (result.last.trace_id !== null) printLine(io, color.dim(`last trace ${result.last.trace_id}`))
}
