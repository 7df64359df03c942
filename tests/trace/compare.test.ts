import { describe, expect, it } from 'vitest'
import { REDACTED, type TraceRecord } from 'svc/trace'
import { compareResponses } from '../../cli/trace/compare.ts'
import type { TraceRecordJson } from '../../cli/contract/traces.ts'

const response = (body: unknown, headers: Record<string, string> = {}, status = 200) => ({ status, headers, body })

describe('the regression comparison rule', () => {
  it('ignores volatile fields and values, compares the rest', () => {
    const recorded = response(
      { data: { id: 1, post_id: 9, title: 'A', created_at: '2026-01-01T00:00:00.000Z', token: REDACTED, when: '2026-01-01', elapsed_ms: 3 } },
      { 'content-type': 'application/json', date: 'Mon', 'x-service-trace-id': 'svc_1' },
    )
    const current = response(
      { data: { id: 7, post_id: 3, title: 'A', created_at: '2026-11-22T03:00:00.000Z', token: 'eyJ.x.y', when: '2026-11-22', elapsed_ms: 9 } },
      { 'content-type': 'application/json', date: 'Tue', 'x-service-trace-id': 'svc_2' },
    )
    expect(compareResponses(recorded, current)).toEqual({ changed: false, status: null, headers: [], body: [] })
  })

  it('reports status, header and body changes, a volatile field changing type or disappearing', () => {
    const diff = compareResponses(
      response({ data: { id: 1, title: 'A', tags: ['x'] } }, { 'content-type': 'application/json', allow: 'GET' }, 200),
      response({ data: { id: 'one', title: 'B', tags: ['x', 'y'], extra: true } }, { 'content-type': 'text/plain' }, 404),
    )
    expect(diff.changed).toBe(true)
    expect(diff.status).toEqual({ recorded: 200, current: 404 })
    expect(diff.headers).toEqual([
      { name: 'allow', recorded: 'GET', current: null },
      { name: 'content-type', recorded: 'application/json', current: 'text/plain' },
    ])
    expect(diff.body).toEqual([
      { path: 'data.id', recorded: 1, current: 'one' },
      { path: 'data.title', recorded: 'A', current: 'B' },
      { path: 'data.tags.length', recorded: 1, current: 2 },
      { path: 'data.extra', recorded: null, current: true },
    ])
    const gone = compareResponses(response({ data: { id: 1 } }), response({ data: {} }))
    expect(gone.body).toEqual([{ path: 'data.id', recorded: 1, current: null }])
  })

  it("ignores the stack of a debug 500 (each process has its own frames), compares what was thrown", () => {
    const debug500 = (stack: string[], thrown = { class: 'TypeError', message: 'the widget exploded' }) =>
      response({ exception: { ...thrown, stack }, success: false, error: 'Internal Server Error', code: 500 }, {}, 500)
    const server = debug500(['TypeError: the widget exploded', '    at boom (/srv/app/routes/web.ts:12:11)', '    at run (file:///srv/node_modules/svc/dist/framework/middleware/compose.js:44:28)'])
    const replay = debug500(['TypeError: the widget exploded', '    at boom (/srv/app/routes/web.ts:12:11)', '    at run (/work/svc/framework/middleware/compose.ts:52:43)', '    at async replayOne (/work/svc/cli/trace/regression-run.ts:248:22)'])
    expect(compareResponses(server, replay)).toEqual({ changed: false, status: null, headers: [], body: [] })
    // APP_DEBUG on for one run only: the details on one side are no change either.
    const production = response({ success: false, error: 'Internal Server Error', code: 500 }, {}, 500)
    expect(compareResponses(server, production).changed).toBe(false)
    expect(compareResponses(production, replay).changed).toBe(false)
    // Another exception is the app's doing.
    const other = debug500(['RangeError: out of range'], { class: 'RangeError', message: 'out of range' })
    expect(compareResponses(server, other).body).toEqual([
      { path: 'exception.class', recorded: 'TypeError', current: 'RangeError' },
      { path: 'exception.message', recorded: 'the widget exploded', current: 'out of range' },
    ])
    // A recorded body cut at TRACE_BODY_LIMIT inside the stack: what precedes the stack is compared.
    const cut = (body: unknown) => ({ ...response(JSON.stringify(body).slice(0, 220), {}, 500), truncated: true })
    expect(compareResponses(cut(server.body), replay).changed).toBe(false)
    expect(compareResponses(cut(server.body), other).changed).toBe(true)
    // Outside an error envelope, a field named exception is the app's data, compared as such.
    expect(compareResponses(response({ data: 1, exception: { stack: ['a'] } }), response({ data: 1, exception: { stack: ['b'] } })).changed).toBe(true)
  })

  it('compares a truncated recorded body as a prefix', () => {
    const recorded = { ...response('{"data":{"text":"abc'), truncated: true }
    expect(compareResponses(recorded, response({ data: { text: 'abcdef' } })).changed).toBe(false)
    expect(compareResponses(recorded, response({ data: { text: 'xyz' } })).changed).toBe(true)
  })
})

describe('the contract', () => {
  it('declares the record the framework stores', () => {
    // Compile-time: each type is assignable to the other.
    const fromFramework = (record: TraceRecord): TraceRecordJson => record
    const fromContract = (record: TraceRecordJson): TraceRecord => record
    expect([fromFramework, fromContract]).toHaveLength(2)
  })
})
