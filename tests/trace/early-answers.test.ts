/**
 * A request answered before its body is read (a 401 for an expired token, a
 * 429, a 413 counted on the bytes of a chunked body) whose client is still
 * sending: the client must get that answer, and its connection must stay
 * usable. The tracer (or the body reader) used to stop reading the body
 * half-way, which stopped the socket being read: the client's rest never
 * arrived, the adapter closed the connection under it, and with a 500 kB
 * body about half of the answers were lost ("other side closed" in fetch).
 * Real sockets against svc's Node server, traced as `svc serve` traces.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defineRoutes, HttpError } from 'svc'
import { startServer, type RunningServer } from '../helpers/server.ts'
import { bodyText } from '../../cli/trace/view.ts'
import { serve as serveOnDeno } from '../../framework/deno/index.ts'
import { tracedApp, type TracedApp } from './helpers.ts'
import { earlyAnsweredThenReused } from '../helpers/early-answer-socket.ts'

const api = defineRoutes((r) => {
  r.post('/guarded', function guarded() {
    throw new HttpError(401, 'Unauthenticated')
  })
  r.post('/reads', (c) => c.body())
  r.get('/ping', () => ({ pong: true }))
})

let traced: TracedApp | undefined
let server: RunningServer | undefined
afterEach(async () => {
  vi.unstubAllGlobals()
  await server?.close()
  await traced?.close()
  server = undefined
  traced = undefined
})

describe('answers sent before the body is read', () => {
  it('a 401 to a 500 kB body arrives, and the connection answers its next request', async () => {
    traced = await tracedApp({ api })
    server = await startServer(traced.app)
    expect((await earlyAnsweredThenReused(server.port, '/api/guarded', 500_000, false)).statuses).toEqual([401, 200])
    expect((await earlyAnsweredThenReused(server.port, '/api/guarded', 500_000, true)).statuses).toEqual([401, 200])
  })

  it('a 413 counted on the bytes of a chunked body arrives, and the connection answers its next request', async () => {
    traced = await tracedApp({ api, vars: { BODY_LIMIT: '100000' } })
    server = await startServer(traced.app)
    expect((await earlyAnsweredThenReused(server.port, '/api/reads', 500_000, true, 150_000)).statuses).toEqual([413, 200])
  })

  it("the trace of a 413 counted on a chunked body says every byte the client sent, the rest drained after the answer included", async () => {
    traced = await tracedApp({ api, vars: { BODY_LIMIT: '100000' } })
    server = await startServer(traced.app)
    const { statuses, traceIds } = await earlyAnsweredThenReused(server.port, '/api/reads', 500_000, true, 150_000)
    expect(statuses).toEqual([413, 200])
    await traced.tracer.flush()
    const record = (await traced.store.get(traceIds[0]!))!
    expect(record.response.status).toBe(413)
    // It said the bytes read up to the limit (100,000 and the rest of the chunk that crossed it).
    expect(record.body).toEqual({ content: null, size: Buffer.byteLength(JSON.stringify({ note: 'x'.repeat(500_000) })), truncated: true, incomplete: false })
  })

  it('a 413 whose chunked body goes on past 64 MiB is counted to there and marked capped', async () => {
    traced = await tracedApp({ api, vars: { BODY_LIMIT: '100000' } })
    const chunk = new Uint8Array(1024 * 1024).fill(0x20)
    let sent = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    const response = await traced.app.fetch(
      new Request('http://localhost/api/reads', { method: 'POST', body: endless, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit),
    )
    expect(response.status).toBe(413)
    await traced.tracer.flush()
    const record = (await traced.store.get(response.headers.get('x-service-trace-id')!))!
    expect(record.body).toMatchObject({ content: null, truncated: true, incomplete: false, capped: true })
    // Counted to the cap (and the chunk that crossed it), no further: the rest was cancelled there.
    expect(record.body.size).toBeGreaterThan(64 * 1024 * 1024)
    expect(record.body.size).toBeLessThanOrEqual(64 * 1024 * 1024 + chunk.byteLength)
    expect(sent).toBeLessThan(64 * 1024 * 1024 + 4 * chunk.byteLength)
    expect(bodyText(record.body)).toBe(`(not kept)\n… [capped: svc stopped counting at 64 MiB; ${record.body.size} bytes read, the body was at least that]`)
  })

  // Deno.serve as svc's adapter uses it: the handler, and `info.completed` settling once the answer was sent.
  function stubbedDeno() {
    let handler!: (request: Request, info: { remoteAddr: { hostname: string }; completed: Promise<void> }) => Response | Promise<Response>
    vi.stubGlobal('Deno', {
      serve: (_options: unknown, serving: typeof handler) => ((handler = serving), { addr: { hostname: '127.0.0.1', port: 1 }, shutdown: async () => {} }),
    })
    return { handle: (request: Request) => handler(request, { remoteAddr: { hostname: '127.0.0.1' }, completed: new Promise<void>(() => {}) }) }
  }

  /** A request body fed by hand, that says when it was cancelled. */
  function handFedBody() {
    let sending!: ReadableStreamDefaultController<Uint8Array>
    let cancelled = false
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (sending = controller), cancel: () => void (cancelled = true) })
    const post = (path: string) => new Request(`http://127.0.0.1${path}`, { method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit)
    return { sending, post, cancelled: () => cancelled }
  }

  it('on Deno, a body whose rest has not come when the answer is ready is cancelled before Deno gets the answer (Deno keeps the connection then), and traced as far as it came', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BODY_LIMIT: '1000' } })
    const deno = stubbedDeno()
    const running = serveOnDeno(traced.app, { signals: false })
    const body = handFedBody()
    body.sending.enqueue(new Uint8Array(65_536).fill(0x20))
    const response = await deno.handle(body.post('/api/guarded'))
    expect(response.status).toBe(401)
    // Left open, Deno answered `Connection: close` and dropped the client's next request.
    expect(body.cancelled()).toBe(true)
    await traced.tracer.flush()
    const record = (await traced.store.get(response.headers.get('x-service-trace-id')!))!
    expect(record.body).toMatchObject({ size: 65_536, truncated: true, incomplete: true })
    await running.close()
  })

  it('on Deno, a body that came whole before the answer is counted whole and not cancelled', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BODY_LIMIT: '1000' } })
    const deno = stubbedDeno()
    const running = serveOnDeno(traced.app, { signals: false })
    const body = handFedBody()
    const bytes = new TextEncoder().encode(JSON.stringify({ note: 'x'.repeat(200_000) }))
    body.sending.enqueue(bytes)
    body.sending.close()
    const response = await deno.handle(body.post('/api/guarded'))
    expect(response.status).toBe(401)
    expect(body.cancelled()).toBe(false)
    await traced.tracer.flush()
    const record = (await traced.store.get(response.headers.get('x-service-trace-id')!))!
    expect(record.body).toMatchObject({ size: bytes.byteLength, truncated: true, incomplete: false })
    await running.close()
  })

})
