/**
 * The dashboard page: `log:stats` and `log:top` as tiles, a chart of p50 and
 * p95 over time (the stats' timeline), the error rate per route, and the
 * slowest endpoints; a route opens its traces. The charts are SVG drawn
 * here: no library, nothing remote.
 */
import type { EndpointStatsJson, StatsBucketJson, StatsJson, TopJson } from '../../cli/contract/traces.ts'
import type { DashboardPanelMessage, DashboardWebviewMessage } from '../src/messages.ts'
import { formatDate, formatMinute } from '../src/time-format.ts'
import { actionLink, h, ms, svg, timeOptions, vscodeApi } from './dom.ts'

const vscode = vscodeApi<DashboardWebviewMessage>()
const app = document.getElementById('app')!
const DAYS = [1, 7, 30]
let days = 7

function tile(label: string, value: string, id: string, tone = ''): HTMLElement {
  return h('div', { class: `tile ${tone}`, id }, h('div', { class: 'tile-value' }, value), h('div', { class: 'tile-label' }, label))
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`
}

/** p50 and p95 over time: two lines on one time axis, the latency axis from 0 to the highest p95. */
function latencyChart(buckets: StatsBucketJson[], bucketMs: number): HTMLElement {
  if (buckets.length === 0) return h('p', { class: 'muted' }, 'No traces in this period.')
  const width = 640
  const height = 200
  const pad = { left: 56, right: 12, top: 12, bottom: 28 }
  const times = buckets.map((bucket) => Date.parse(bucket.start))
  const first = times[0]!
  const last = Math.max(times.at(-1)!, first + bucketMs)
  const top = Math.max(...buckets.map((bucket) => bucket.p95_ms), 0.001)
  const x = (time: number) => pad.left + ((time - first) / (last - first)) * (width - pad.left - pad.right)
  const y = (value: number) => height - pad.bottom - (value / top) * (height - pad.top - pad.bottom)
  const line = (pick: (bucket: StatsBucketJson) => number, tone: string, name: string) => {
    const points = buckets.map((bucket, i) => `${x(times[i]!).toFixed(1)},${y(pick(bucket)).toFixed(1)}`)
    const group = svg('g', { class: `series ${tone}`, 'data-series': name })
    group.append(svg('polyline', { points: points.join(' '), fill: 'none' }))
    for (const point of points) {
      const [cx, cy] = point.split(',')
      group.append(svg('circle', { cx: cx!, cy: cy!, r: 2.5 }))
    }
    return group
  }
  const axis = svg('g', { class: 'axis' })
  for (const fraction of [0, 0.5, 1]) {
    const value = top * fraction
    axis.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value), class: 'grid' }))
    axis.append(svg('text', { x: pad.left - 6, y: y(value) + 4, 'text-anchor': 'end' }, value === 0 ? '0 ms' : ms(value)))
  }
  const label = (time: number) => (bucketMs >= 86_400_000 ? formatDate(time, timeOptions) : formatMinute(time, Date.now(), timeOptions))
  axis.append(svg('text', { x: pad.left, y: height - 8, 'text-anchor': 'start' }, label(first)))
  axis.append(svg('text', { x: width - pad.right, y: height - 8, 'text-anchor': 'end' }, label(last)))
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'p50 and p95 latency over time', id: 'latency-chart' }, axis, line((b) => b.p50_ms, 'tone-p50', 'p50'), line((b) => b.p95_ms, 'tone-p95', 'p95'))
  return h(
    'figure',
    {},
    chart,
    h('figcaption', {}, h('span', { class: 'key tone-p50' }, 'p50'), ' ', h('span', { class: 'key tone-p95' }, 'p95'), ` · one point per ${bucketLabel(bucketMs)} with traces`),
  )
}

function bucketLabel(bucketMs: number): string {
  const minutes = bucketMs / 60_000
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`
  const hours = minutes / 60
  return hours < 24 ? `${hours} hour${hours === 1 ? '' : 's'}` : `${hours / 24} day${hours === 24 ? '' : 's'}`
}

/** The error rate (5xx) of each route, as bars from 0 to 100%. */
function errorRates(endpoints: EndpointStatsJson[]): HTMLElement {
  if (endpoints.length === 0) return h('p', { class: 'muted' }, 'No routes in this period.')
  const rows = [...endpoints].sort((a, b) => b.errors / b.count - a.errors / a.count || b.count - a.count)
  return h(
    'table',
    { class: 'rates', id: 'error-rates' },
    ...rows.map((endpoint) => {
      const rate = endpoint.errors / endpoint.count
      const fill = h('div', { class: `fill ${rate > 0 ? 'tone-error' : 'tone-ok'}` })
      fill.style.width = `${Math.max(rate > 0 ? 2 : 0, rate * 100)}%`
      return h(
        'tr',
        {},
        h('th', {}, routeLink(endpoint)),
        h('td', { class: 'bar-cell' }, h('div', { class: 'track' }, fill)),
        h('td', { class: 'number' }, `${percent(rate)} (${endpoint.errors}/${endpoint.count})`),
      )
    }),
  )
}

function routeLink(endpoint: EndpointStatsJson): HTMLElement {
  // The requests that matched no route have no route to open the traces of: their paths are named instead (an older svc gives no paths).
  if (endpoint.paths !== null && endpoint.paths !== undefined) {
    const paths = endpoint.paths.map((path) => `${path.path} (${path.count})`).join('\n')
    return h('span', { class: 'no-route', title: paths }, `${endpoint.method} ${endpoint.route}`)
  }
  return actionLink(`${endpoint.method} ${endpoint.route}`, { class: 'route-link' }, () => vscode.postMessage({ type: 'openRoute', method: endpoint.method, route: endpoint.route }))
}

function render(stats: StatsJson, top: TopJson): void {
  const classes = Object.entries(stats.by_status).filter(([, count]) => count > 0)
  app.replaceChildren(
    header(),
    h(
      'div',
      { class: 'tiles' },
      tile('requests', String(stats.total), 'tile-total'),
      tile('error rate (5xx)', percent(stats.error_rate), 'tile-errors', stats.error_rate > 0 ? 'tone-error' : ''),
      tile('p50', ms(stats.p50_ms), 'tile-p50'),
      tile('p95', ms(stats.p95_ms), 'tile-p95'),
      tile('p99', ms(stats.p99_ms), 'tile-p99'),
      tile('with N+1', String(stats.n_plus_one), 'tile-n-plus-one', stats.n_plus_one > 0 ? 'tone-warning' : ''),
      tile('dropped', String(stats.dropped), 'tile-dropped'),
    ),
    h('p', { class: 'classes' }, ...classes.map(([name, count]) => h('span', { class: `status status-${name}` }, `${name} ${count}`))),
    h('section', { id: 'latency' }, h('h2', {}, 'Latency over time'), latencyChart(stats.timeline, stats.bucket_ms)),
    h('section', { id: 'errors' }, h('h2', {}, 'Error rate per route'), errorRates(top.endpoints)),
    h(
      'section',
      { id: 'top' },
      h('h2', {}, 'Slowest endpoints'),
      top.endpoints.length === 0
        ? h('p', { class: 'muted' }, 'No traces in this period.')
        : h(
            'table',
            { class: 'top' },
            h('tr', {}, ...['Route', 'Count', '5xx', 'Avg', 'p95', 'Max'].map((name) => h('th', {}, name))),
            ...top.endpoints.map((endpoint) =>
              h('tr', {}, h('td', {}, routeLink(endpoint)), ...[String(endpoint.count), String(endpoint.errors), ms(endpoint.avg_ms), ms(endpoint.p95_ms), ms(endpoint.max_ms)].map((cell) => h('td', { class: 'number' }, cell))),
            ),
          ),
    ),
  )
}

function header(): HTMLElement {
  const select = h('select', { id: 'days', 'aria-label': 'Period' }, ...DAYS.map((n) => h('option', { value: String(n) }, n === 1 ? 'last day' : `last ${n} days`))) as HTMLSelectElement
  select.value = String(days)
  select.addEventListener('change', () => {
    days = Number(select.value)
    vscode.postMessage({ type: 'refresh', days })
  })
  return h('header', {}, h('h1', {}, 'Traces dashboard'), select)
}

window.addEventListener('message', (event: MessageEvent<DashboardPanelMessage>) => {
  const message = event.data
  if (typeof message !== 'object' || message === null) return
  if (message.type === 'data') render(message.stats, message.top)
  else if (message.type === 'busy') document.getElementById('days')?.setAttribute('aria-busy', 'true')
  else app.replaceChildren(header(), h('p', { class: 'error-text', id: 'dashboard-error' }, message.message))
})

app.replaceChildren(header(), h('p', { class: 'muted' }, 'Loading…'))
vscode.postMessage({ type: 'ready' })
