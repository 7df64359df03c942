/**
 * The Traces view's source re-renders the tree only when what it lists
 * changed: the store also changes in ways the list does not show, and each
 * re-render drops the row under the user's mouse with its inline actions.
 */
import { describe, expect, it, vi } from 'vitest'
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'

vi.mock('vscode', async () => (await import('./vscode-tree-fake.ts')).vscodeTreeFake)

const { TraceSource, TracesTreeProvider } = await import('../../extension/src/traces-view.ts')
const { formatDateTime, formatTime } = await import('../../extension/src/time-format.ts')

const summary = (traceId: string): TraceSummaryJson => ({
  trace_id: traceId,
  method: 'GET',
  path: '/api/v1/posts',
  query: '',
  route: '/api/v1/posts',
  status_code: 200,
  duration_ms: 1,
  ip: '127.0.0.1',
  timestamp: '2026-11-23T10:00:00.000Z',
  user_id: null,
  exception: null,
  error_message: null,
  errors: null,
  query_count: 0,
  n_plus_one: false,
  replay_of: null,
  unverified_replay_of: null,
})

function fakeClient(lists: TraceSummaryJson[][]) {
  let tracesChanged: () => void = () => undefined
  let call = 0
  return {
    calls: () => call,
    client: {
      onTracesChanged: (listener: () => void) => {
        tracesChanged = listener
        return { dispose: () => undefined }
      },
      request: async () => ({ traces: lists[Math.min(call++, lists.length - 1)] }),
    },
    storeChanged: () => tracesChanged(),
  }
}

describe('TraceSource', () => {
  it('tells the tree once per different listing, not on every store change', async () => {
    const first = [summary('svc_a')]
    const { client, storeChanged, calls } = fakeClient([first, first, [summary('svc_b'), ...first]])
    // The source only calls the two members faked here.
    const source = new TraceSource(client as never, () => ({ limit: 50, ignore: [] }))
    let renders = 0
    source.onDidChange(() => renders++)

    await source.refresh()
    expect(renders).toBe(1)
    storeChanged() // the server's notice: the source loads again (the same listing) and leaves the tree alone
    await vi.waitFor(() => expect(calls()).toBe(2))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(renders).toBe(1)
    storeChanged() // the third listing has a new trace
    await vi.waitFor(() => expect(renders).toBe(2))
    expect(source.traces.map((trace) => trace.trace_id)).toEqual(['svc_b', 'svc_a'])
  })

  it('re-renders for a new query even when it lists the same traces (the empty view names the filter)', async () => {
    const { client } = fakeClient([[]])
    const source = new TraceSource(client as never, () => ({ limit: 50, ignore: [] }))
    let renders = 0
    source.onDidChange(() => renders++)
    await source.refresh()
    source.setErrorsOnly(true)
    await source.refresh()
    expect(renders).toBe(2)
    expect(source.filtered).toBe(true)
  })

  it("lists a route's traces as its CodeLens counts them: a GET route's HEAD requests too, not another method's", async () => {
    const trace = (traceId: string, method: string, path: string, route: string | null): TraceSummaryJson => ({ ...summary(traceId), method, path, route })
    const store = [
      trace('svc_get', 'GET', '/api/v1/posts/5', '/api/v1/posts/{id}'),
      trace('svc_head', 'HEAD', '/api/v1/posts/5/', '/api/v1/posts/{id}'),
      trace('svc_put', 'PUT', '/api/v1/posts/5', '/api/v1/posts/{id}'),
      trace('svc_slug', 'GET', '/api/v1/posts/hello', '/api/v1/posts/{slug}'),
    ]
    // The language server as it asks the CLI (traceListArgs): the route's own traces, GET,HEAD for a GET route.
    const asked: Array<{ method?: string; route?: string }> = []
    const client = {
      onTracesChanged: () => ({ dispose: () => undefined }),
      request: async (_method: string, params: { method?: string; route?: string }) => {
        asked.push(params)
        const methods = params.route !== undefined && params.method === 'GET' ? ['GET', 'HEAD'] : params.method === undefined ? undefined : [params.method]
        return { traces: store.filter((entry) => (methods === undefined || methods.includes(entry.method)) && (params.route === undefined || entry.route === params.route)) }
      },
    }
    const source = new TraceSource(client as never, () => ({ limit: 50, ignore: [] }))
    source.setFilters({ path: '/api/v1/posts/*', route: '/api/v1/posts/{id}', method: 'GET' })
    await source.refresh()
    expect(source.traces.map((entry) => entry.trace_id).sort()).toEqual(['svc_get', 'svc_head'])
    expect(source.describeFilters()).toBe('GET · route /api/v1/posts/{id}')
    // Asked for the route itself, so that the CLI's count and "Load more" are the route's (not /api/v1/posts/{slug}'s).
    expect(asked.at(-1)).toMatchObject({ route: '/api/v1/posts/{id}', method: 'GET', path: '/api/v1/posts/*' })
    source.setFilters({ path: '/api/v1/posts/*', route: '/api/v1/posts/{id}', method: 'PUT' })
    await source.refresh()
    expect(source.traces.map((entry) => entry.trace_id)).toEqual(['svc_put'])
    expect(asked.at(-1)?.method).toBe('PUT')
  })
})

describe('TracesTreeProvider', () => {
  const pins = { all: [], has: () => false, onDidChange: () => ({ dispose: () => undefined }) }

  it("writes a row's time and its tooltip's time one way (24-hour numbers, the helper every view uses)", async () => {
    const { client } = fakeClient([[summary('svc_a')]])
    const source = new TraceSource(client as never, () => ({ limit: 50, ignore: [] }))
    await source.refresh()
    const tree = new TracesTreeProvider(source, pins as never)
    const [row] = tree.getChildren()
    const item = tree.getTreeItem(row!) as unknown as { description: string; tooltip: { value: string } }
    const timestamp = summary('svc_a').timestamp
    expect(item.description).toBe(`1 ms · ${formatTime(timestamp)}`)
    // The tooltip had the locale's "11/23/2026, 10:00:00 AM" under a row reading 10:00.
    expect(item.tooltip.value.split('\n\n').at(-1)).toBe(`\`svc_a\` · ${formatDateTime(timestamp)}`)
    expect(formatDateTime(timestamp)).toMatch(/^2026-11-2[34] \d\d:\d\d:00$/)
  })
})
