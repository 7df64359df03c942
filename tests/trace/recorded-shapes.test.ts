/**
 * What the trace keeps of unusual requests and responses (issue 10's trace
 * fixes, issue 11 item 8): bodies the framework refused (400, 415: the text,
 * redacted; 413: the size), headers middleware added to the response (as they
 * went on the wire), and a body nested thousands of levels deep (cut, with a
 * marker, instead of the request going untraced).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { defineRoutes, TRACE_HEADER, throttle, type Middleware } from 'svc'
import { REDACTED } from 'svc/trace'
import { compareResponses } from '../../cli/trace/compare.ts'
import { startServer } from '../helpers/server.ts'
import { recordOf, request, tracedApp, type TracedApp } from './helpers.ts'

const serverTiming: Middleware = async function serverTiming(_c, next) {
  const response = await next()
  // The way app code sets a header: on the response svc built.
  response.headers.set('Server-Timing', 'app;dur=1.5')
  response.headers.set('X-Powered-By', 'svc-test')
  return response
}

const api = defineRoutes((r) => {
  r.post('/echo', async (c) => ({ received: await c.body() }))
  r.post('/accept', async (c) => {
    await c.body()
    return { ok: true }
  })
  r.post('/ignore', () => ({ ignored: true }))
  r.get('/limited', () => ({ ok: true })).middleware(throttle({ maxAttempts: 2, decayMinutes: 1 }))
  r.get('/timed', () => ({ ok: true })).middleware(serverTiming)
})

let traced: TracedApp | undefined
afterEach(async () => {
  await traced?.close()
  traced = undefined
})

describe('bodies the framework refused', () => {
  it('400 malformed JSON: the text as sent, redacted, so that replay resends it', async () => {
    traced = await tracedApp({ api })
    const sent = `{"title": "Hello", "password": "hunter2-hunter2", }`
    const response = await traced.app.fetch(request('POST', '/api/accept', { body: sent, headers: { 'content-type': 'application/json' } }))
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: string }
    expect(body.error).toBe('Malformed JSON body: invalid JSON at line 1, column 51')
    const record = await recordOf(traced, response)
    expect(record.body).toEqual({ content: `{"title": "Hello", "password": "${REDACTED}", }`, size: sent.length, truncated: false, incomplete: false })
    expect(record.exception!.message).toBe('Malformed JSON body: invalid JSON at line 1, column 51')
  })

  it('400 for JSON that parses (a duplicate key, a number too large, an inexact integer): the text as sent, redacted, not re-serialized', async () => {
    traced = await tracedApp({ api })
    // Parsed and written back, each became another body (the first key dropped, 1e400 as null, the integer rounded),
    // which replay sent and the app accepted: svc replay --diff and test:regression reported a 200 for a 400.
    for (const sent of [
      '{"title":"Hello","password":"hunter2-hunter2","title":"Bye"}',
      '{"title":"Hello","password":"hunter2-hunter2","price":1e400}',
      '{"title":"Hello","password":"hunter2-hunter2","id":9007199254740993}',
    ]) {
      const response = await traced.app.fetch(request('POST', '/api/accept', { body: sent, headers: { 'content-type': 'application/json' } }))
      expect(response.status, sent).toBe(400)
      const record = await recordOf(traced, response)
      expect(record.body, sent).toEqual({ content: sent.replace('hunter2-hunter2', REDACTED), size: sent.length, truncated: false, incomplete: false })
    }
  })

  it('415 another type: the text, redacted; 413 too large: only its size', async () => {
    traced = await tracedApp({ api, vars: { BODY_LIMIT: '64' } })
    const form = await traced.app.fetch(
      request('POST', '/api/accept', { body: 'title=Hello&password=hunter2-hunter2', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    )
    expect(form.status).toBe(415)
    expect((await recordOf(traced, form)).body).toEqual({ content: `title=Hello&password=${REDACTED}`, size: 36, truncated: false, incomplete: false })

    const big = await traced.app.fetch(request('POST', '/api/accept', { json: { padding: 'x'.repeat(100) } }))
    expect(big.status).toBe(413)
    expect((await recordOf(traced, big)).body).toEqual({ content: null, size: 114, truncated: true, incomplete: false })
  })
})

describe('response headers', () => {
  it('are recorded as they went on the wire: RateLimit-*, Retry-After and headers middleware set', async () => {
    traced = await tracedApp({ api })
    const server = await startServer(traced.app)
    try {
      const answers: Response[] = []
      for (let i = 0; i < 3; i++) answers.push(await fetch(`${server.url}/api/limited`))
      const timed = await fetch(`${server.url}/api/timed`)
      for (const answer of [...answers, timed]) await answer.text()
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429])
      expect(timed.headers.get('server-timing')).toBe('app;dur=1.5')

      const ok = await recordOf(traced, answers[0]!)
      expect(ok.response.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'content-type': 'application/json; charset=utf-8' })
      expect(ok.response.headers['ratelimit-reset']).toMatch(/^\d+$/)
      const limited = await recordOf(traced, answers[2]!)
      expect(limited.response.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0' })
      expect(limited.response.headers['retry-after']).toMatch(/^\d+$/)
      const timedRecord = await recordOf(traced, timed)
      expect(timedRecord.response.headers).toMatchObject({ 'server-timing': 'app;dur=1.5', 'x-powered-by': 'svc-test' })

      // What was recorded is what was sent: every header of the wire is there, with its value.
      const wire: Record<string, string> = {}
      timed.headers.forEach((value, name) => (wire[name] = value))
      for (const name of ['content-type', 'server-timing', 'x-powered-by', 'x-service-trace-id']) expect(timedRecord.response.headers[name], name).toBe(wire[name])
    } finally {
      await server.close()
    }
  })

  it('a replay of a throttled route shows no difference in the rate-limit headers', () => {
    const recorded = { status: 200, headers: { 'ratelimit-limit': '60', 'ratelimit-remaining': '59', 'ratelimit-reset': '60', 'x-ratelimit-limit': '60' }, body: { ok: true } }
    const current = { status: 200, headers: { 'ratelimit-limit': '100', 'ratelimit-remaining': '12', 'ratelimit-reset': '31', 'x-ratelimit-limit': '100' }, body: { ok: true } }
    expect(compareResponses(recorded, current).changed).toBe(false)
    // A header the throttle did not add still counts.
    expect(compareResponses({ ...recorded, headers: { ...recorded.headers, 'x-api-version': '1' } }, current).headers).toEqual([
      { name: 'x-api-version', recorded: '1', current: null },
    ])
  })
})

describe('a body nested thousands of levels deep', () => {
  const depth = 10_000
  const nested = `${'['.repeat(depth)}"bottom"${']'.repeat(depth)}`
  // Echoed back: JSON.stringify itself gives up at about 5,000 levels (the app's 500, not the trace's concern).
  const objects = `${'{"a":'.repeat(4000)}{"password":"deep-secret-9f8e"}${'}'.repeat(4000)}`

  it('is traced, cut at the depth limit with a marker (read by the handler, echoed, or left unread)', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BODY_LIMIT: '1000000' }, vars: { BODY_LIMIT: '1000000' } })
    const responses = [
      await traced.app.fetch(request('POST', '/api/accept', { body: nested, headers: { 'content-type': 'application/json' } })),
      await traced.app.fetch(request('POST', '/api/echo', { body: objects, headers: { 'content-type': 'application/json' } })),
      await traced.app.fetch(request('POST', '/api/ignore', { body: nested, headers: { 'content-type': 'application/json' } })),
    ]
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200])
    await traced.tracer.flush()
    expect(traced.tracer.stats()).toMatchObject({ failed: 0, written: 3 })
    for (const response of responses) {
      const record = (await traced.store.get(response.headers.get(TRACE_HEADER)!))!
      expect(record.body.truncated).toBe(true)
      expect(JSON.stringify(record.body.content)).toContain('[TRUNCATED: nested too deep]')
    }
    const echo = (await traced.store.get(responses[1]!.headers.get(TRACE_HEADER)!))!
    expect(echo.response.body.truncated).toBe(true)
    expect(JSON.stringify(echo.response.body.content)).toContain('[TRUNCATED: nested too deep]')
  })
})
