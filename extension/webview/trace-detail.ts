/**
 * The trace detail page, running inside the webview: renders one trace
 * (`svc log:trace <id> --json`) with links to the code (route, handler, the
 * line of each SQL statement and of the N+1), the results of its actions
 * (replay, why), and posts the buttons' messages to the extension. DOM built
 * with createElement/textContent only: trace content is never parsed as HTML.
 */
import type { ReplayJson, SourceLocationJson, TraceEventJson, TraceQueryJson, TraceRecordJson, WhyJson } from '../../cli/contract/traces.ts'
import type { TraceAction, TracePanelMessage, TraceWebviewMessage } from '../src/messages.ts'
import { formatDateTime } from '../src/time-format.ts'
import { actionLink, button, h, ms, pretty, statusPill, timeOptions, vscodeApi, type Child } from './dom.ts'

type TraceMessage = Extract<TracePanelMessage, { type: 'trace' }>

const vscode = vscodeApi<TraceWebviewMessage>()
const app = document.getElementById('app')!
let shown: TraceMessage | null = null

function headersTable(headers: Record<string, string>): HTMLElement {
  const names = Object.keys(headers).sort()
  if (names.length === 0) return h('p', { class: 'muted' }, 'No headers')
  return h('table', { class: 'headers' }, ...names.map((name) => h('tr', {}, h('th', {}, name), h('td', {}, headers[name]!))))
}

/** A body as the record keeps it: the start of its text (or none), and the size of all of it (as `svc log:trace` says it). */
function bodyBlock(body: TraceRecordJson['body']): HTMLElement {
  if (body.content === null && body.size === 0 && body.incomplete !== true) return h('p', { class: 'muted' }, 'No body')
  const content = body.content === null || body.content === '' ? h('p', { class: 'muted' }, `Not kept: the trace has only its size (${body.size} bytes)`) : h('pre', { class: 'body' }, pretty(body.content))
  return h(
    'div',
    {},
    content,
    body.capped === true
      ? h('p', { class: 'muted' }, `Capped: svc stopped counting at 64 MiB; ${body.size} bytes read, the body was at least that`)
      : body.incomplete === true
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

/** A file as shown: relative to the project root when under it. */
function displayPath(file: string): string {
  const root = shown?.root
  if (root && file.startsWith(`${root}/`)) return file.slice(root.length + 1)
  return file
}

function sourceLink(file: string, line: number, column: number, label?: string): HTMLElement {
  return actionLink(label ?? `${displayPath(file)}:${line}:${column}`, { class: 'source-link', 'data-file': file, 'data-line': String(line), 'data-column': String(column) }, () =>
    vscode.postMessage({ type: 'openSource', file, line, column }),
  )
}

/** A position's link, and for one in a file changed since the request (`stale`, svc log:trace) that it is the recorded one. */
function sourceAt(location: SourceLocationJson): Child[] {
  const link = sourceLink(location.file, location.line, location.column)
  return location.stale === true ? [link, h('span', { class: 'muted stale' }, ' (as recorded; the file changed since the request)')] : [link]
}

const FRAME = /^(.*?)\(?((?:file:\/\/)?(?:[A-Za-z]:)?[^():\s]+\.[cm]?[jt]sx?):(\d+):(\d+)\)?\s*$/

/**
 * An application frame: not in node_modules, and under the project root when the path is absolute. svc linked
 * from a checkout (`svc new` from one writes `"svc": "file:<checkout>"`; `npm link`) runs from its real path,
 * outside node_modules: its frames are svc's, not the app's.
 */
function isApplicationFile(file: string): boolean {
  if (/node_modules|node:internal/.test(file)) return false
  const root = shown?.root
  const absolute = /^(?:\/|[A-Za-z]:[\\/])/.test(file)
  return !absolute || !root || file.startsWith(`${root}/`)
}

function stackLine(line: string): HTMLElement {
  const match = FRAME.exec(line)
  const file = match ? match[2]!.replace(/^file:\/\//, '') : null
  if (!match || file === null || !isApplicationFile(file)) return h('div', { class: 'frame muted' }, line)
  return h('div', { class: 'frame' }, match[1]!.trimEnd() + ' ', sourceLink(file, Number(match[3]), Number(match[4])))
}

function section(title: string, id: string, ...children: Child[]): HTMLElement {
  return h('section', { id }, h('h2', {}, title), ...children)
}

function actionButton(action: TraceAction, label: string, traceId: string, secondary = false): HTMLElement {
  return button(label, { 'data-action': action, ...(secondary ? { class: 'secondary' } : {}) }, () => vscode.postMessage({ type: 'action', action, traceId }))
}

function queryItem(query: TraceQueryJson, total: number): HTMLElement {
  return h(
    'li',
    { class: 'query' },
    h('div', { class: 'row' }, h('code', { class: 'sql' }, query.sql), h('span', { class: 'timing' }, `${ms(query.duration_ms)} · ${query.rows} row${query.rows === 1 ? '' : 's'}`)),
    query.source ? h('div', { class: 'from' }, 'from ', ...sourceAt(query.source)) : null,
    query.args !== null && (Array.isArray(query.args) ? query.args.length > 0 : Object.keys(query.args).length > 0) ? h('div', { class: 'args muted' }, `args: ${JSON.stringify(query.args)}`) : null,
    query.error ? h('div', { class: 'error-text' }, query.error) : null,
    bar(query.start_ms, query.duration_ms, total, query.error ? 'tone-error' : 'tone-sql'),
  )
}

/** One emitted event: its bar on the request's time axis, then each listener it ran (its time, queued, or its failure). */
function eventItem(event: TraceEventJson, total: number): HTMLElement {
  const failed = event.listeners.some((listener) => listener.error !== null)
  return h(
    'li',
    { class: 'event' },
    h('div', { class: 'row' }, h('strong', { class: 'event-name' }, event.name), h('span', { class: 'timing' }, `+${ms(event.start_ms)} · ${ms(event.duration_ms)}`)),
    bar(event.start_ms, event.duration_ms, total, failed ? 'tone-error' : 'tone-event'),
    event.listeners.length === 0
      ? h('p', { class: 'muted' }, 'No listener')
      : h(
          'ul',
          { class: 'listeners' },
          ...event.listeners.map((listener) =>
            h(
              'li',
              { class: listener.error === null ? 'listener' : 'listener failed' },
              h('div', { class: 'row' }, h('code', {}, listener.name), listener.queued ? h('span', { class: 'chip' }, 'queued') : h('span', { class: 'timing' }, ms(listener.duration_ms ?? 0))),
              listener.error === null ? null : h('div', { class: 'error-text' }, `failed: ${listener.error}`),
            ),
          ),
        ),
  )
}

function renderTrace(message: TraceMessage): void {
  shown = message
  vscode.setState({ message })
  const { trace, route } = message
  const total = trace.duration_ms
  const queryTime = trace.queries.reduce((sum, query) => sum + query.duration_ms, 0)
  const path = trace.query ? `${trace.path}?${trace.query}` : trace.path
  const replayOf = trace.headers['x-svc-replay-of']
  const failed = trace.status_code >= 400

  const routeLine = h('p', { class: 'links', id: 'code-links' })
  if (route) {
    routeLine.append(
      'Route ',
      route.source ? sourceLink(route.source.file, route.source.line, route.source.column, `${route.method} ${route.path}`) : h('code', {}, `${route.method} ${route.path}`),
      ' → handler ',
      actionLink(route.handler, { class: 'handler-link', id: 'handler-link' }, () => vscode.postMessage({ type: 'openHandler', method: route.method, route: route.path })),
    )
  } else routeLine.append(trace.route ? `Route ${trace.route}` : 'No route matched')

  const header = h(
    'header',
    {},
    h('h1', {}, h('span', { class: 'method' }, trace.method), ' ', h('span', { class: 'path' }, path), ' ', statusPill(trace.status_code, 'status')),
    h(
      'p',
      { class: 'meta' },
      `${ms(total)} · ${formatDateTime(trace.timestamp, timeOptions)} · `,
      h('code', { id: 'trace-id' }, trace.trace_id),
      trace.ip ? ` · ${trace.ip}` : '',
      trace.user_id !== null ? ` · user ${trace.user_id}` : '',
      trace.memory_mb !== null ? ` · process RSS ${trace.memory_mb.toFixed(1)} MB` : '',
      message.writes ? h('span', { class: 'chip', id: 'writes' }, 'wrote data') : null,
      replayOf ? h('span', { class: 'chip' }, 'replay of ', actionLink(replayOf.slice(0, 16), { id: 'replay-of' }, () => vscode.postMessage({ type: 'openTrace', traceId: replayOf }))) : null,
    ),
    routeLine,
    h(
      'div',
      { class: 'actions' },
      actionButton('replay', 'Replay', trace.trace_id),
      actionButton('replayDiff', 'Replay and diff', trace.trace_id),
      failed ? actionButton('why', 'Why?', trace.trace_id) : null,
      actionButton('replayAs', 'Replay as…', trace.trace_id, true),
      actionButton('replayOnServer', `Replay on ${message.environment.name}`, trace.trace_id, true),
      actionButton('editAndSend', 'Edit and send', trace.trace_id, true),
      actionButton('copyCurl', 'Copy as curl', trace.trace_id, true),
      actionButton('createTest', 'Create regression test', trace.trace_id, true),
      actionButton('compare', 'Compare with…', trace.trace_id, true),
      actionButton('pin', message.pinned ? 'Unpin' : 'Pin', trace.trace_id, true),
    ),
    h('div', { id: 'result', class: 'result', role: 'status' }),
  )

  const exception = trace.exception
    ? section(
        'Exception',
        'exception',
        h('p', { class: 'exception' }, h('strong', {}, trace.exception.class), `: ${trace.exception.message} (${trace.exception.status})`),
        trace.exception.location ? h('p', {}, 'at ', ...sourceAt(trace.exception.location)) : null,
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
          ...trace.n_plus_one.map((finding) =>
            h(
              'div',
              { class: 'finding' },
              h('strong', {}, `${finding.count}× same query`),
              ` (${ms(finding.total_ms)}) `,
              h('code', {}, finding.shape),
              finding.source ? h('div', { class: 'from' }, 'from ', ...sourceAt(finding.source)) : null,
            ),
          ),
        )
      : null

  const sql = section(
    `SQL (${trace.queries.length} ${trace.queries.length === 1 ? 'query' : 'queries'}, ${ms(queryTime)})`,
    'sql',
    trace.queries.length === 0 ? h('p', { class: 'muted' }, 'No queries') : h('ol', { class: 'queries' }, ...trace.queries.map((query) => queryItem(query, total))),
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

  // A page restored from its saved state may hold a trace read before svc recorded events.
  const events = trace.events ?? []
  const omitted = trace.events_omitted ?? 0
  const eventCount = events.length + omitted
  const eventsSection = section(
    `Events (${eventCount})`,
    'events',
    eventCount === 0 ? h('p', { class: 'muted' }, 'No events recorded (an event shows here when emitted with emit(event, c))') : h('ol', { class: 'events' }, ...events.map((event) => eventItem(event, total))),
    omitted > 0 ? h('p', { class: 'muted' }, `${omitted} more not kept (a trace keeps the first ${events.length})`) : null,
  )

  const request = section('Request', 'request', h('h3', {}, 'Headers'), headersTable(trace.headers), h('h3', {}, 'Body'), bodyBlock(trace.body))
  const response = section(`Response ${trace.response.status}`, 'response', h('h3', {}, 'Headers'), headersTable(trace.response.headers), h('h3', {}, 'Body'), bodyBlock(trace.response.body))

  app.replaceChildren(header, ...[exception, nPlusOne, sql, middleware, eventsSection, request, response].filter((node): node is HTMLElement => node !== null))
}

function showResult(...children: Child[]): void {
  const target = document.getElementById('result')
  if (target) target.replaceChildren(...children.filter((child): child is Node | string => Boolean(child)))
}

function renderReplay(replay: ReplayJson): void {
  if (replay.test_file) {
    return showResult(
      h('p', { id: 'replay-outcome' }, 'Regression test written: ', h('code', {}, replay.test_file)),
      ...replay.test_warnings.map((warning) => h('p', { class: 'warning-text test-warning' }, warning)),
    )
  }
  if (replay.command) return showResult(h('p', { id: 'replay-outcome' }, `Copied (${replay.target}): `), h('pre', { class: 'body' }, replay.command))
  if (replay.dry_run || replay.response === null) {
    return showResult(
      h('p', { id: 'replay-outcome' }, `Dry run (nothing sent): ${replay.request.method} ${replay.request.url}`),
      replay.redacted.length > 0 ? h('p', { class: 'muted' }, `Redacted, not replayed: ${replay.redacted.join(', ')}`) : null,
    )
  }
  const recorded = shown?.trace.status_code
  const status = replay.response.status
  const newTrace = replay.response.trace_id
  showResult(
    h(
      'p',
      { id: 'replay-outcome' },
      'Replayed: ',
      statusPill(status, 'replay-status'),
      recorded !== undefined ? ` (recorded ${recorded})` : '',
      ` in ${ms(replay.response.duration_ms)}`,
      replay.target !== 'in-process' ? ` on ${replay.target}` : '',
      replay.signed_in_as !== null ? ` as ${replay.signed_in_as}` : '',
      newTrace ? ' · new trace ' : '',
      newTrace ? actionLink(newTrace, { id: 'new-trace' }, () => vscode.postMessage({ type: 'openTrace', traceId: newTrace })) : null,
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
    replay.redacted.length > 0 ? h('p', { class: 'muted' }, `Redacted, not replayed: ${replay.redacted.join(', ')} (Replay as… signs in)`) : null,
  )
}

function renderWhy(why: WhyJson): void {
  const failure = why.failure
  const routing = why.routing
  showResult(
    h(
      'section',
      { id: 'why' },
      h('h2', {}, 'Why?'),
      failure
        ? h(
            'div',
            {},
            h('p', { id: 'why-explanation', class: 'explanation' }, h('strong', {}, `${failure.status} ${failure.kind.replace(/_/g, ' ')}`), `: ${failure.explanation}`),
            failure.middleware ? h('p', {}, 'Answered by the middleware ', h('code', {}, failure.middleware)) : null,
            failure.location ? h('p', {}, 'Thrown at ', ...sourceAt(failure.location)) : null,
            failure.errors ? h('ul', { class: 'errors' }, ...Object.entries(failure.errors).map(([field, messages]) => h('li', {}, h('code', {}, field), `: ${messages.join('; ')}`))) : null,
          )
        : h('p', { id: 'why-explanation' }, 'This request did not fail.'),
      h(
        'p',
        { class: 'muted' },
        `Routing: ${routing.outcome.replace(/_/g, ' ')}`,
        routing.matched ? ` → ${routing.matched.method} ${routing.matched.path} (${[...routing.matched.middleware, routing.matched.handler].join(' → ')})` : '',
        routing.allowed.length > 0 ? ` · allowed: ${routing.allowed.join(', ')}` : '',
      ),
      routing.candidates.length > 0
        ? h('ul', { class: 'candidates' }, ...routing.candidates.map((candidate) => h('li', {}, h('code', {}, `${candidate.method} ${candidate.path}`), `: ${candidate.detail}`)))
        : null,
    ),
  )
}

function setBusy(busy: boolean): void {
  for (const element of document.querySelectorAll<HTMLButtonElement>('button[data-action]')) element.disabled = busy
}

const BUSY_TEXT: Partial<Record<TraceAction, string>> = {
  copyCurl: 'Building the command…',
  createTest: 'Writing the test…',
  why: 'Asking why…',
  editAndSend: 'Preparing the request…',
  compare: 'Pick the other trace…',
  pin: '',
}

window.addEventListener('message', (event: MessageEvent<TracePanelMessage>) => {
  const message = event.data
  if (typeof message !== 'object' || message === null) return
  switch (message.type) {
    case 'trace':
      renderTrace(message)
      break
    case 'busy': {
      setBusy(true)
      const text = BUSY_TEXT[message.action] ?? 'Replaying…'
      showResult(text ? h('p', { class: 'muted' }, text) : null)
      break
    }
    case 'replayResult':
      setBusy(false)
      renderReplay(message.replay)
      break
    case 'why':
      setBusy(false)
      renderWhy(message.why)
      break
    case 'pinned': {
      const pin = document.querySelector<HTMLButtonElement>('button[data-action="pin"]')
      if (pin) pin.textContent = message.pinned ? 'Unpin' : 'Pin'
      if (shown) shown = { ...shown, pinned: message.pinned }
      break
    }
    case 'notice':
      setBusy(false)
      showResult(message.message ? h('p', {}, message.message) : null)
      break
    case 'error':
      setBusy(false)
      showResult(h('p', { class: 'error-text', id: 'replay-error' }, message.message))
      break
  }
})

const saved = vscode.getState() as { message?: TraceMessage } | undefined
if (saved?.message) renderTrace(saved.message)
vscode.postMessage({ type: 'ready' })
