/**
 * The trace detail page, running inside the webview: renders one trace
 * (`svc log:trace <id> --json`'s `trace`) and the results of its actions, and
 * posts the buttons' messages to the extension. DOM built with
 * createElement/textContent only: trace content is never parsed as HTML.
 */
import type { ReplayJson, TraceRecordJson } from '../../cli/contract/traces.ts'
import type { PanelMessage, WebviewMessage } from '../src/messages.ts'

interface VsCodeApi {
  postMessage(message: WebviewMessage): void
  getState(): unknown
  setState(state: unknown): void
}

declare function acquireVsCodeApi(): VsCodeApi

const vscode = acquireVsCodeApi()
const app = document.getElementById('app')!
let current: TraceRecordJson | null = null

type Child = Node | string | null | undefined | false

function h(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    element.append(typeof child === 'string' ? document.createTextNode(child) : child)
  }
  return element
}

function ms(value: number): string {
  return value < 1 ? `${value.toFixed(2)} ms` : value < 1000 ? `${value.toFixed(1)} ms` : `${(value / 1000).toFixed(2)} s`
}

function statusClass(status: number): string {
  return status >= 500 ? 'status-5xx' : status >= 400 ? 'status-4xx' : status >= 300 ? 'status-3xx' : 'status-2xx'
}

function pretty(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}

function headersTable(headers: Record<string, string>): HTMLElement {
  const names = Object.keys(headers).sort()
  if (names.length === 0) return h('p', { class: 'muted' }, 'No headers')
  return h('table', { class: 'headers' }, ...names.map((name) => h('tr', {}, h('th', {}, name), h('td', {}, headers[name]!))))
}

function bodyBlock(body: { content: unknown; size: number; truncated: boolean; incomplete?: boolean }): HTMLElement {
  if (body.content === null || body.content === '') return h('p', { class: 'muted' }, 'No body')
  return h(
    'div',
    {},
    h('pre', { class: 'body' }, pretty(body.content)),
    body.incomplete === true
      ? h('p', { class: 'muted' }, `Incomplete: the client sent ${body.size} bytes before the response was sent or the connection closed`)
      : body.truncated
        ? h('p', { class: 'muted' }, `Truncated (${body.size} bytes in all)`)
        : null,
  )
}

/** A bar from `start` to `start + duration` on a 0..total scale (CSSOM styles: allowed by the CSP). */
function bar(start: number, duration: number, total: number, tone: string): HTMLElement {
  const track = h('div', { class: 'track' })
  const fill = h('div', { class: `fill ${tone}` })
  const scale = total > 0 ? total : 1
  fill.style.left = `${Math.min(100, (start / scale) * 100)}%`
  fill.style.width = `${Math.max(0.5, Math.min(100, (duration / scale) * 100))}%`
  track.append(fill)
  return track
}

function sourceLink(file: string, line: number, column: number, label?: string): HTMLElement {
  const link = h('a', { href: '#', class: 'source-link', 'data-file': file, 'data-line': String(line), 'data-column': String(column) }, label ?? `${file}:${line}:${column}`)
  link.addEventListener('click', (event) => {
    event.preventDefault()
    vscode.postMessage({ type: 'openSource', file, line, column })
  })
  return link
}

const FRAME = /^(.*?)\(?((?:file:\/\/)?(?:[A-Za-z]:)?[^():\s]+\.[cm]?[jt]sx?):(\d+):(\d+)\)?\s*$/

function stackLine(line: string): HTMLElement {
  const match = FRAME.exec(line)
  if (!match || /node_modules|node:internal/.test(match[2]!)) return h('div', { class: 'frame muted' }, line)
  const file = match[2]!.replace(/^file:\/\//, '')
  return h('div', { class: 'frame' }, match[1]!.trimEnd() + ' ', sourceLink(file, Number(match[3]), Number(match[4]), `${file}:${match[3]}:${match[4]}`))
}

function section(title: string, id: string, ...children: Child[]): HTMLElement {
  return h('section', { id }, h('h2', {}, title), ...children)
}

function actionButton(action: 'replay' | 'replayDiff' | 'copyCurl' | 'createTest', label: string, traceId: string): HTMLElement {
  const button = h('button', { type: 'button', 'data-action': action }, label)
  button.addEventListener('click', () => vscode.postMessage({ type: action, traceId }))
  return button
}

function renderTrace(trace: TraceRecordJson): void {
  current = trace
  vscode.setState({ trace })
  const total = trace.duration_ms
  const queryTime = trace.queries.reduce((sum, query) => sum + query.duration_ms, 0)
  const path = trace.query ? `${trace.path}?${trace.query}` : trace.path

  const header = h(
    'header',
    {},
    h('h1', {}, h('span', { class: 'method' }, trace.method), ' ', h('span', { class: 'path' }, path), ' ', h('span', { class: `status ${statusClass(trace.status_code)}`, id: 'status' }, String(trace.status_code))),
    h(
      'p',
      { class: 'meta' },
      `${ms(total)} · ${new Date(trace.timestamp).toLocaleString()} · `,
      h('code', { id: 'trace-id' }, trace.trace_id),
      trace.route ? ` · route ${trace.route}` : ' · no route matched',
      trace.ip ? ` · ${trace.ip}` : '',
      trace.user_id !== null ? ` · user ${trace.user_id}` : '',
      trace.memory_mb !== null ? ` · process RSS ${trace.memory_mb.toFixed(1)} MB` : '',
    ),
    h(
      'div',
      { class: 'actions' },
      actionButton('replay', 'Replay', trace.trace_id),
      actionButton('replayDiff', 'Replay and diff', trace.trace_id),
      actionButton('copyCurl', 'Copy as curl', trace.trace_id),
      actionButton('createTest', 'Create regression test', trace.trace_id),
    ),
    h('div', { id: 'result', class: 'result', role: 'status' }),
  )

  const exception = trace.exception
    ? section(
        'Exception',
        'exception',
        h('p', { class: 'exception' }, h('strong', {}, trace.exception.class), `: ${trace.exception.message} (${trace.exception.status})`),
        trace.exception.location ? h('p', {}, 'at ', sourceLink(trace.exception.location.file, trace.exception.location.line, trace.exception.location.column)) : null,
        trace.exception.errors
          ? h('ul', { class: 'errors' }, ...Object.entries(trace.exception.errors).map(([field, messages]) => h('li', {}, h('code', {}, field), `: ${messages.join('; ')}`)))
          : null,
        trace.trace ? h('div', { class: 'stack' }, ...trace.trace.map(stackLine)) : h('p', { class: 'muted' }, 'No stack (recorded outside debug mode)'),
      )
    : null

  const nPlusOne =
    trace.n_plus_one.length > 0
      ? section(
          'N+1 queries',
          'n-plus-one',
          ...trace.n_plus_one.map((finding) => h('div', { class: 'finding' }, h('strong', {}, `${finding.count}×`), ` ${ms(finding.total_ms)} `, h('code', {}, finding.shape))),
        )
      : null

  const sql = section(
    `SQL (${trace.queries.length} ${trace.queries.length === 1 ? 'query' : 'queries'}, ${ms(queryTime)})`,
    'sql',
    trace.queries.length === 0
      ? h('p', { class: 'muted' }, 'No queries')
      : h(
          'ol',
          { class: 'queries' },
          ...trace.queries.map((query) =>
            h(
              'li',
              { class: 'query' },
              h('div', { class: 'row' }, h('code', { class: 'sql' }, query.sql), h('span', { class: 'timing' }, `${ms(query.duration_ms)} · ${query.rows} row${query.rows === 1 ? '' : 's'}`)),
              query.args !== null && (Array.isArray(query.args) ? query.args.length > 0 : Object.keys(query.args).length > 0) ? h('div', { class: 'args muted' }, `args: ${JSON.stringify(query.args)}`) : null,
              query.error ? h('div', { class: 'error-text' }, query.error) : null,
              bar(query.start_ms, query.duration_ms, total, query.error ? 'tone-error' : 'tone-sql'),
            ),
          ),
        ),
  )

  const middleware = section(
    'Middleware timeline',
    'middleware',
    trace.middleware.length === 0
      ? h('p', { class: 'muted' }, 'No middleware ran')
      : h(
          'ol',
          { class: 'timeline' },
          ...trace.middleware.map((entry) =>
            h('li', {}, h('div', { class: 'row' }, h('span', {}, entry.name), h('span', { class: 'timing' }, `+${ms(entry.start_ms)} · ${ms(entry.duration_ms)}`)), bar(entry.start_ms, entry.duration_ms, total, 'tone-middleware')),
          ),
        ),
  )

  const request = section('Request', 'request', h('h3', {}, 'Headers'), headersTable(trace.headers), h('h3', {}, 'Body'), bodyBlock(trace.body))
  const response = section(
    `Response ${trace.response.status}`,
    'response',
    h('h3', {}, 'Headers'),
    headersTable(trace.response.headers),
    h('h3', {}, 'Body'),
    bodyBlock(trace.response.body),
  )

  app.replaceChildren(header, ...[exception, nPlusOne, sql, middleware, request, response].filter((node): node is HTMLElement => node !== null))
}

function result(): HTMLElement | null {
  return document.getElementById('result')
}

function showResult(...children: Child[]): void {
  const target = result()
  if (target) target.replaceChildren(...children.filter((child): child is Node | string => Boolean(child)))
}

function renderReplay(replay: ReplayJson): void {
  if (replay.test_file) return showResult(h('p', { id: 'replay-outcome' }, 'Regression test written: ', h('code', {}, replay.test_file)))
  if (replay.command) return showResult(h('p', { id: 'replay-outcome' }, 'Copied: '), h('pre', { class: 'body' }, replay.command))
  if (replay.dry_run || replay.response === null) {
    return showResult(
      h('p', { id: 'replay-outcome' }, `Dry run (nothing sent): ${replay.request.method} ${replay.request.url}`),
      replay.redacted.length > 0 ? h('p', { class: 'muted' }, `Redacted, not replayed: ${replay.redacted.join(', ')}`) : null,
    )
  }
  const recorded = current?.status_code
  const status = replay.response.status
  showResult(
    h(
      'p',
      { id: 'replay-outcome' },
      'Replayed: ',
      h('span', { class: `status ${statusClass(status)}`, id: 'replay-status' }, String(status)),
      recorded !== undefined ? ` (recorded ${recorded})` : '',
      ` in ${ms(replay.response.duration_ms)}`,
      replay.response.trace_id ? ` · new trace ${replay.response.trace_id}` : '',
    ),
    replay.diff
      ? h(
          'p',
          { id: 'replay-diff', class: replay.diff.changed ? 'changed' : 'same' },
          replay.diff.changed
            ? `Changed: ${[replay.diff.status ? 'status' : '', replay.diff.headers.length ? `${replay.diff.headers.length} header(s)` : '', replay.diff.body.length ? `${replay.diff.body.length} body field(s)` : ''].filter(Boolean).join(', ')}`
            : 'Same response as recorded',
        )
      : null,
    replay.redacted.length > 0 ? h('p', { class: 'muted' }, `Redacted, not replayed: ${replay.redacted.join(', ')}`) : null,
  )
}

function setBusy(busy: boolean): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-action]')) button.disabled = busy
}

window.addEventListener('message', (event: MessageEvent<PanelMessage>) => {
  const message = event.data
  if (typeof message !== 'object' || message === null) return
  switch (message.type) {
    case 'trace':
      renderTrace(message.trace)
      break
    case 'busy':
      setBusy(true)
      showResult(h('p', { class: 'muted' }, message.action === 'copyCurl' ? 'Building the command…' : message.action === 'createTest' ? 'Writing the test…' : 'Replaying…'))
      break
    case 'replayResult':
      setBusy(false)
      renderReplay(message.replay)
      break
    case 'notice':
      setBusy(false)
      showResult(h('p', {}, message.message))
      break
    case 'error':
      setBusy(false)
      showResult(h('p', { class: 'error-text', id: 'replay-error' }, message.message))
      break
  }
})

const saved = vscode.getState() as { trace?: TraceRecordJson } | undefined
if (saved?.trace) renderTrace(saved.trace)
vscode.postMessage({ type: 'ready' })
