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
