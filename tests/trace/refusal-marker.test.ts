/**
 * A request Node's HTTP parser refused (framework/node/client-error.ts,
 * through `app.reject`) is marked so in its trace (`refused_before_app`),
 * and replay / test:regression read the mark instead of guessing from the
 * record's shape. The guess took a request the app did answer for a parser
 * refusal when it looked like one: HTTP/1.0 allows a request without any
 * header, and an app without global middleware runs none before the router's
 * own 400 (a malformed percent-encoding). Records written before the mark
 * existed still get the guess.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendRaw } from '../helpers/server.ts'
import { defineRoutes } from 'svc'
import { decodeBatch, encodeBatch, type TraceRecord } from 'svc/trace'
import { serve } from 'svc/node'
import { refusedBeforeTheApp, unreplayable } from '../../cli/trace/replay.ts'
import { tracedApp, traceRecord, type TracedApp } from './helpers.ts'

let traced: TracedApp
const records: Record<string, TraceRecord> = {}

beforeAll(async () => {
  // No global middleware: nothing runs before the router's own 400.
  traced = await tracedApp({ api: defineRoutes((r) => r.get('/posts/{id}', (c) => ({ id: c.params.id }))) })
  const server = await serve(traced.app, { port: 0, host: '127.0.0.1' })
  const ids: Record<string, string> = {}
  try {
    ids.garbage = await sendRaw(server.port, '\u0016\u0003\u0001 not http at all\r\n\r\n')
    ids.nul = await sendRaw(server.port, 'GET /api/posts/1\u0000 HTTP/1.1\r\nHost: x\r\n\r\n')
    ids.headerless = await sendRaw(server.port, 'GET /api/posts/%E0%A4%A HTTP/1.0\r\n\r\n')
    ids.answered = await sendRaw(server.port, 'GET /api/posts/7 HTTP/1.0\r\n\r\n')
  } finally {
    await server.close()
  }
  await traced.tracer.flush()
  for (const [name, id] of Object.entries(ids)) {
    const record = await traced.store.get(id)
    expect(record, `${name}: ${id}`).toBeDefined()
    records[name] = record!
  }
})
afterAll(() => traced?.close())

describe('the trace of a request the HTTP parser refused is marked', () => {
  it('refused_before_app is true for what Node refused, false for every request the app was given', () => {
    // Not `GET /`, which a real request to / also is: no request line could be read.
    expect(records.garbage).toMatchObject({ refused_before_app: true, status_code: 400, method: '-', path: '/' })
    expect(records.nul).toMatchObject({ refused_before_app: true, status_code: 400 })
    expect(records.headerless).toMatchObject({ refused_before_app: false, status_code: 400, route: null, headers: {}, middleware: [] })
    expect(records.answered).toMatchObject({ refused_before_app: false, status_code: 200 })
  })

  it('replay refuses only the refused ones (E_TRACE_NOT_HTTP); a headerless HTTP/1.0 request the router answered 400 is replayable', () => {
    expect(unreplayable(records.garbage!)?.code).toBe('E_TRACE_NOT_HTTP')
    expect(unreplayable(records.nul!)?.code).toBe('E_TRACE_NOT_HTTP')
    // It has the shape the guess looked for: no header, no middleware, no route, an HttpError 400.
    expect(records.headerless!.exception).toMatchObject({ class: 'HttpError', status: 400 })
    expect(unreplayable(records.headerless!)).toBeUndefined()
    expect(unreplayable(records.answered!)).toBeUndefined()
  })

  it('the mark survives the batch codec, as a change from one record to the next either way', () => {
    const batch = [records.answered!, records.garbage!, records.headerless!, records.nul!]
    const decoded = decodeBatch(encodeBatch(batch, batch.map((record) => Date.parse(record.timestamp))).data)
    expect(decoded.map((record) => record.refused_before_app)).toEqual([false, true, false, true])
  })
})

describe('records written before the mark existed', () => {
  const unmarked = (record: TraceRecord): TraceRecord => {
    const { refused_before_app: _mark, ...rest } = record
    return rest
  }

  it('are read from a stored batch without the field, and judged by their shape as before', () => {
    const old = [unmarked(records.garbage!), unmarked(records.answered!)]
    // A batch as svc wrote it before: the records' JSON has no refused_before_app.
    const text = encodeBatch(old, old.map((record) => Date.parse(record.timestamp))).data
    expect(text).not.toContain('refused_before_app')
    const [garbage, answered] = decodeBatch(text)
    expect(garbage!.refused_before_app).toBeUndefined()
    expect(refusedBeforeTheApp(garbage!)).toBe(true)
    expect(unreplayable(garbage!)?.code).toBe('E_TRACE_NOT_HTTP')
    expect(refusedBeforeTheApp(answered!)).toBe(false)
    expect(refusedBeforeTheApp(traceRecord(1))).toBe(false)
  })
})
