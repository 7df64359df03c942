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
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defineRoutes, HttpError } from 'svc'
import { startServer, type RunningServer } from '../helpers/server.ts'
import { bodyText } from '../../cli/trace/view.ts'
import { serve as serveOnDeno } from '../../framework/deno/index.ts'
import { tracedApp, type TracedApp } from './helpers.ts'

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

/** Collects what a socket receives; `until(n)` resolves once `n` answers (by their status lines) arrived, or the socket closed. */
function receiver(socket: Socket) {
  let text = ''
  let closed = false
  const waiters: Array<() => void> = []
  const wake = () => waiters.splice(0).forEach((w) => w())
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => ((text += chunk), wake()))
  socket.on('close', () => ((closed = true), wake()))
  socket.on('error', () => {})
  // A status line follows the previous answer's body directly: not at a line start.
  const statuses = () => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
  return {
    statuses,
    traceIds: () => [...text.matchAll(/x-service-trace-id: (\S+)/gi)].map((m) => m[1]!),
    async until(count: number): Promise<number[]> {
      while (statuses().length < count && !closed) await new Promise<void>((resolve) => waiters.push(resolve))
      return statuses()
    },
  }
}

/**
 * Sends a POST whose head and `first` bytes of body go at once; once the answer to it
 * arrived, the rest of the body, then a GET on the same connection.
 */
async function earlyAnsweredThenReused(port: number, path: string, size: number, chunked: boolean, first = 65_536): Promise<{ statuses: number[]; traceIds: string[] }> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  const got = receiver(socket)
  const body = Buffer.from(JSON.stringify({ note: 'x'.repeat(size) }))
  const framed = (part: Buffer) => (chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part)
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`)
  socket.write(framed(body.subarray(0, first)))
  expect((await got.until(1)).length).toBe(1)
  for (let offset = first; offset < body.length; offset += 65_536) socket.write(framed(body.subarray(offset, offset + 65_536)))
  if (chunked) socket.write('0\r\n\r\n')
  socket.write('GET /api/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  const statuses = await got.until(2)
  socket.destroy()
  return { statuses, traceIds: got.traceIds() }
}

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

  it('on Deno, a body answered early is counted whole: Deno delivers the rest after the response completed, and the trace reads it', async () => {
    traced = await tracedApp({ api, traceVars: { TRACE_BODY_LIMIT: '1000' } })
    // Deno.serve as svc's adapter uses it: the handler, and `info.completed` settling once the answer was sent.
    let handler!: (request: Request, info: { remoteAddr: { hostname: string }; completed: Promise<void> }) => Response | Promise<Response>
    vi.stubGlobal('Deno', {
      serve: (_options: unknown, serving: typeof handler) => ((handler = serving), { addr: { hostname: '127.0.0.1', port: 1 }, shutdown: async () => {} }),
    })
    const running = serveOnDeno(traced.app, { signals: false })
    const body = new TextEncoder().encode(JSON.stringify({ note: 'x'.repeat(200_000) }))
    let sending!: ReadableStreamDefaultController<Uint8Array>
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (sending = controller) })
    sending.enqueue(body.subarray(0, 65_536))
    let completed!: () => void
    const info = { remoteAddr: { hostname: '127.0.0.1' }, completed: new Promise<void>((resolve) => (completed = resolve)) }
    const request = new Request('http://127.0.0.1/api/guarded', { method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit)
    const response = await handler(request, info)
    expect(response.status).toBe(401)
    completed()
    // The rest comes once the answer is out (a macrotask later: every reaction to `completed` has run by then).
    await new Promise((resolve) => setTimeout(resolve, 0))
    sending.enqueue(body.subarray(65_536))
    sending.close()
    await traced.tracer.flush()
    const record = (await traced.store.get(response.headers.get('x-service-trace-id')!))!
    // It said 65,536 bytes, incomplete: the count stopped when the response completed.
    expect(record.body).toMatchObject({ size: body.byteLength, truncated: true, incomplete: false })
    await running.close()
  })
})
