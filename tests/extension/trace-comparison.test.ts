/**
 * What "Compare Traces" / "Compare with…" puts in VS Code's diff editor: the
 * events a trace emitted and what each listener did are compared too. Before,
 * two traces of which one emitted PostCreated (or had a listener fail) and
 * the other did not compared as identical in that respect.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { TraceRecordJson } from '../../cli/contract/traces.ts'
import { comparable } from '../../extension/src/trace-comparison.ts'

const trace = JSON.parse(readFileSync(new URL('./fixtures/trace-500.json', import.meta.url), 'utf8')) as TraceRecordJson

describe('comparing two traces', () => {
  it('shows the events each emitted, with each listener, queued or not, and its error', () => {
    expect(comparable(trace).events).toEqual([
      { name: 'PostCreated', listeners: [{ name: 'count-post', queued: false, error: null }, { name: 'mail-author', queued: true, error: null }] },
      { name: 'PostPublished', listeners: [{ name: 'ping-search', queued: false, error: 'search index unreachable <b>503</b>' }] },
    ])
  })

  it('differs where one trace emitted an event the other did not, or a listener failed in one only', () => {
    const emittedNothing = { ...trace, events: [] }
    expect(comparable(emittedNothing)).not.toEqual(comparable(trace))
    const [created, published] = trace.events
    const mailFailed = { ...trace, events: [{ ...created!, listeners: created!.listeners.map((listener) => (listener.queued ? { ...listener, error: 'connect ECONNREFUSED 127.0.0.1:1' } : listener)) }, published!] }
    expect(comparable(mailFailed)).not.toEqual(comparable(trace))
    // Beyond the first 100, events are only counted: a different count is a difference too.
    expect(comparable({ ...trace, events_omitted: 3 })).not.toEqual(comparable(trace))
  })

  it('leaves timings out, as everywhere in the comparison: two runs of one request compare equal', () => {
    const later = { ...trace, events: trace.events.map((event) => ({ ...event, start_ms: event.start_ms + 5, duration_ms: event.duration_ms * 2, listeners: event.listeners.map((listener) => ({ ...listener, duration_ms: listener.duration_ms === null ? null : listener.duration_ms + 1 })) })) }
    expect(comparable(later)).toEqual(comparable(trace))
  })

  it('shows a trace recorded before svc recorded events (events absent) as emitting none', () => {
    const { events: _events, events_omitted: _omitted, ...older } = trace
    expect(comparable(older as TraceRecordJson)).toMatchObject({ events: [], events_omitted: 0 })
  })
})
