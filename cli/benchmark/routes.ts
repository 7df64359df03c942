/**
 * `svc benchmark`: every GET route of the app timed through `app.fetch`, in
 * this process (no sockets), one request after another: what the app itself
 * costs per route. Parameters get sample values their constraint accepts
 * (`{id}` where `\d+`: 1; `{year}` where `\d{4}`: 2026); optional ones are
 * left out; a required one no sample satisfies skips the route, with the
 * reason.
 */
import { CONN_INFO, type App, type RouteDescription } from '../../framework/index.ts'
import { anchorConstraint, parseSegments, unanchorConstraint } from '../../framework/router/path-grammar.ts'
import type { BenchmarkJson, BenchmarkRouteJson } from '../contract/devtools.ts'
import { latencies } from '../trace/stats.ts'

/** Tried in order for a parameter: the first its constraint accepts is used. */
const SAMPLE_VALUES = ['1', '2026', 'example', 'a', 'hello-world', 'A1', 'x_1', '2026-01-01', '00000000-0000-4000-8000-000000000000', 'true', '1.5', 'en', 'ABC']

export type RoutePlan = { route: RouteDescription; url: string } | { route: RouteDescription; skipped: string }

/**
 * The GET (and any-method) routes, each with a URL that reaches it, or why it
 * is skipped. The URL is checked with `app.explain`: `/posts/{slug}` behind
 * `/posts/{id}` needs a value `{id}` refuses.
 */
export async function planRoutes(app: App): Promise<RoutePlan[]> {
  const plans: RoutePlan[] = []
  for (const route of app.routes().filter((r) => r.method === 'GET' || r.method === 'ANY')) {
    const segments = parseSegments(route.path).filter((segment) => segment.kind === 'static' || !segment.optional)
    const choices = new Map<string, string[]>()
    let unsatisfied: string | undefined
    for (const segment of segments) {
      if (segment.kind !== 'param') continue
      const pattern = route.params.find((param) => param.name === segment.name)?.pattern ?? null
      const values = sampleValues(pattern)
      if (values.length === 0) unsatisfied ??= `no sample value satisfies {${segment.name}} (${unanchorConstraint(pattern!)})`
      choices.set(segment.name, values)
    }
    if (unsatisfied !== undefined) {
      plans.push({ route, skipped: unsatisfied })
      continue
    }
    const tries = Math.max(1, ...[...choices.values()].map((values) => values.length))
    let plan: RoutePlan | undefined
    let takenBy: string | undefined
    for (let i = 0; i < tries && plan === undefined; i++) {
      const url = `/${segments.map((segment) => (segment.kind === 'static' ? segment.value : encodeURIComponent(pick(choices.get(segment.name)!, i)))).join('/')}`
      const matched = (await app.explain('GET', url)).matched
      if (matched?.path === route.path && matched.method === route.method) plan = { route, url }
      else takenBy ??= matched === null ? 'no route' : `${matched.method} ${matched.path}`
    }
    plans.push(plan ?? { route, skipped: `every sample request is answered by ${takenBy} instead` })
  }
  return plans
}

function pick(values: string[], i: number): string {
  return values[Math.min(i, values.length - 1)]!
}

/** The sample values a constraint accepts (all of them when there is none). */
function sampleValues(pattern: string | null): string[] {
  if (pattern === null) return SAMPLE_VALUES
  let regex: RegExp
  try {
    regex = anchorConstraint(pattern)
  } catch {
    return []
  }
  return SAMPLE_VALUES.filter((value) => regex.test(value))
}

export interface MeasureOptions {
  iterations: number
  warmup: number
  headers: Record<string, string>
  /** Called before each route is measured, and after (progress). */
  onRoute?(plan: { route: RouteDescription; url: string }): void
  onMeasured?(): void
  signal?: AbortSignal
}

export async function measureRoutes(app: App, plans: RoutePlan[], options: MeasureOptions): Promise<Pick<BenchmarkJson, 'routes' | 'skipped'>> {
  const routes: BenchmarkRouteJson[] = []
  const skipped: BenchmarkJson['skipped'] = []
  for (const plan of plans) {
    if ('skipped' in plan) {
      skipped.push({ method: plan.route.method, path: plan.route.path, reason: plan.skipped })
      continue
    }
    if (options.signal?.aborted) break
    options.onRoute?.(plan)
    const send = async () => {
      const started = performance.now()
      const response = await app.fetch(new Request(`http://localhost${plan.url}`, { headers: options.headers }), { [CONN_INFO]: { remoteAddress: '127.0.0.1' } })
      await response.arrayBuffer()
      return { ms: performance.now() - started, status: response.status }
    }
    for (let i = 0; i < options.warmup; i++) await send()
    const times: number[] = []
    const statuses: Record<string, number> = {}
    for (let i = 0; i < options.iterations; i++) {
      const { ms, status } = await send()
      times.push(ms)
      statuses[status] = (statuses[status] ?? 0) + 1
    }
    const spread = latencies(times)
    routes.push({
      method: plan.route.method,
      path: plan.route.path,
      url: plan.url,
      statuses,
      min_ms: spread.min,
      p50_ms: spread.p50,
      p95_ms: spread.p95,
      max_ms: spread.max,
      mean_ms: spread.mean,
      requests_per_second: spread.mean === 0 ? 0 : Math.round(1000 / spread.mean),
    })
    options.onMeasured?.()
  }
  return { routes, skipped }
}
