/**
 * Node-level rejections (issue 11, item 12, and the stalled upload): what
 * Node's parser refuses before the app sees it was answered bare (no
 * envelope, no X-Service-Trace-Id, no trace), and a stalled 1 MiB upload held
 * its buffered body for the default 5 minutes. Now each is the envelope with
 * a trace id, traced through the app's tracer, and a request that does not
 * arrive whole within REQUEST_TIMEOUT_MS is a 408. Raw sockets, because a
 * well-behaved client cannot send these.
 */
import { connect } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { createApp, defineRoutes, type Context } from 'svc'
import { TRACE_ID_PATTERN, type RequestRecorder, type Tracer } from 'svc/trace'
import { serve } from 'svc/node'
import { testConfig } from '../helpers/app.ts'

interface Traced {
  method: string
  path: string
  status: number
  ip: string | undefined
  error: string | undefined
}

function tracedApp(vars: Record<string, string> = {}) {
  const traced: Traced[] = []
  const tracer: Tracer = {
    begin: (): RequestRecorder => ({ startedAt: performance.now(), recordQuery() {}, recordMiddleware() {} }),
    end(c: Context, response: Response) {
      traced.push({ method: c.method, path: c.path, status: response.status, ip: c.ip, error: (c.error as Error | undefined)?.message })
    },
  }
  const app = createApp({
    config: testConfig(vars),
    tracer,
    api: defineRoutes((r) => r.post('/upload', async (c) => ({ size: JSON.stringify(await c.body()).length }))),
  })
  return { app, traced }
}

/** Sends raw bytes (optionally in timed pieces) and reads until the server closes. */
function raw(port: number, pieces: Array<string | Buffer>, options: { endAfter?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (received += chunk))
    socket.on('close', () => resolve(received))
    socket.on('error', (error) => (received === '' ? reject(error) : resolve(received)))
    socket.on('connect', () => {
      for (const piece of pieces) socket.write(piece)
      if (options.endAfter) socket.end()
    })
  })
}

function parse(answer: string) {
  const [head, body = ''] = answer.split('\r\n\r\n')
  const [statusLine, ...lines] = head!.split('\r\n')
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body === '' ? null : JSON.parse(body) }
}

async function withTracedServer(vars: Record<string, string>, work: (port: number, traced: Traced[]) => Promise<void>, requestTimeoutMs?: number) {
  const { app, traced } = tracedApp(vars)
  const server = await serve(app, { port: 0, host: '127.0.0.1', ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) })
  try {
    await work(server.port, traced)
  } finally {
    await server.close()
  }
}

describe('requests Node refuses, answered in the envelope and traced', () => {
  it.each([
    ['a NUL in the request line', 'GET /a\u0000b HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'Bad Request: the request is not valid HTTP'],
    ['bad framing (a Content-Length that is not a number)', 'POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'Bad Request: the request is not valid HTTP'],
    ['both Content-Length and Transfer-Encoding', 'POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'Bad Request: the request is not valid HTTP'],
    ['headers over 16 KB', `GET /api/x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'Request Header Fields Too Large'],
  ])('%s', async (_name, request, status, message) => {
    await withTracedServer({}, async (port, traced) => {
      const answer = parse(await raw(port, [request]))
      expect(answer.status).toBe(status)
      expect(answer.body).toEqual({ success: false, error: message, code: status })
      expect(answer.headers['content-type']).toMatch(/^application\/json/)
      expect(answer.headers['connection']).toBe('close')
      expect(answer.headers['x-service-trace-id']).toMatch(TRACE_ID_PATTERN)
      expect(traced).toHaveLength(1)
      expect(traced[0]).toMatchObject({ status, error: message })
      expect(traced[0]!.ip).toMatch(/127\.0\.0\.1$/)
    })
  })

  it('an Expect other than 100-continue is 417 in the envelope, traced under its method and path (Node answered a bare 417)', async () => {
    await withTracedServer({}, async (port, traced) => {
      const message = 'Expectation Failed: the only expectation served is Expect: 100-continue'
      const answer = parse(await raw(port, ['POST /api/upload HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}']))
      expect(answer.status).toBe(417)
      expect(answer.body).toEqual({ success: false, error: message, code: 417 })
      expect(answer.headers['connection']).toBe('close')
      expect(answer.headers['x-service-trace-id']).toMatch(TRACE_ID_PATTERN)
      expect(traced).toMatchObject([{ method: 'POST', path: '/api/upload', status: 417, error: message }])
      // HTTP/1.0 has no Expect (RFC 9110 section 10.1.1: ignored), and 100-continue is met: both are served.
      const old = parse(await raw(port, ['POST /api/upload HTTP/1.0\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}']))
      expect(old.status).toBe(200)
      const answered = await raw(port, ['POST /api/upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'])
      expect(answered).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/)
    })
  })

  it('Expect: 100-continue gets its 100 only when the app reads the body: a body over the limit is refused before it is sent', async () => {
    await withTracedServer({}, async (port, traced) => {
      // curl asks this way for bodies over 1 MB: Node sent 100 Continue at once, curl sent the 5 MB, and only then got its 413.
      const tooLarge = await raw(port, ['POST /api/upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n'])
      expect(tooLarge).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/)
      expect(tooLarge).not.toContain('100 Continue')
      expect(traced).toMatchObject([{ method: 'POST', path: '/api/upload', status: 413 }])
      // A body the app reads: 100 Continue first, then the answer, once the client sent it on that cue.
      const answered = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1')
        let received = ''
        socket.setEncoding('latin1')
        socket.on('error', reject)
        socket.on('data', (chunk: string) => {
          received += chunk
          if (received === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write('{}')
        })
        socket.on('close', () => resolve(received))
        socket.write('POST /api/upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n')
      })
      expect(answered).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/)
    })
  })

  it('the trace names the method and path when the request line could be read', async () => {
    await withTracedServer({}, async (port, traced) => {
      parse(await raw(port, [`PUT /api/items/7?x=1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]))
      expect(traced[0]).toMatchObject({ method: 'PUT', path: '/api/items/7', status: 431 })
    })
  })

  it('reads a request line with UTF-8 bytes (which Node refuses) as UTF-8: the path is the one the client meant', async () => {
    await withTracedServer({}, async (port, traced) => {
      const line = Buffer.concat([Buffer.from('GET /api/caf'), Buffer.from('é', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])
      expect(parse(await raw(port, [line])).status).toBe(400)
      // As a URL writes it, and as the trace of an accepted /api/café is stored; latin1 read it as /api/cafÃ©.
      expect(traced[0]).toMatchObject({ method: 'GET', path: new URL('/api/café', 'http://x').pathname, status: 400 })
    })
  })
})

/**
 * Requests Node parses but cannot be read as a URL: Node itself refused an
 * HTTP/1.1 request without Host, and @hono/node-server the rest, with a bare
 * 400 (no body, no X-Service-Trace-Id, no trace) before the app saw them.
 */
describe('requests whose target or Host cannot make a URL, answered in the envelope and traced', () => {
  it.each([
    ['an HTTP/1.1 request without Host', 'GET /api/upload HTTP/1.1\r\nConnection: close\r\n\r\n', 'GET', '/api/upload', 'Bad Request: an HTTP/1.1 request needs a Host header'],
    ['OPTIONS * (the server-wide form)', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'OPTIONS', '/', 'Bad Request: the request target is not a path'],
    ['a backslash in the path', 'GET /api\\upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'GET', '/api/upload', 'Bad Request: the request target is not a path'],
    ['a Host that is not a host name', 'GET /api/upload HTTP/1.1\r\nHost: a/b@c\r\nConnection: close\r\n\r\n', 'GET', '/api/upload', 'Bad Request: the Host header is not a host name'],
    // These two were answered `the request target is not a path`: the target is one; the Host makes no URL.
    ['a Host whose port is out of range', 'GET /api/upload HTTP/1.1\r\nHost: x:99999\r\nConnection: close\r\n\r\n', 'GET', '/api/upload', 'Bad Request: the Host header is not a host name'],
    ['a Host with a space', 'GET /api/upload HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n', 'GET', '/api/upload', 'Bad Request: the Host header is not a host name'],
    ['an absolute target of another scheme', 'GET ftp://x/api/upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'GET', '/', 'Bad Request: the request target is not a path'],
  ])('%s', async (_name, request, method, path, message) => {
    await withTracedServer({}, async (port, traced) => {
      const answer = parse(await raw(port, [request]))
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ success: false, error: message, code: 400 })
      expect(answer.headers['content-type']).toMatch(/^application\/json/)
      expect(answer.headers['x-service-trace-id']).toMatch(TRACE_ID_PATTERN)
      expect(traced).toEqual([expect.objectContaining({ method, path, status: 400, error: message })])
      expect(traced[0]!.ip).toMatch(/127\.0\.0\.1$/)
    })
  })

  it('CONNECT (a proxy\'s method) is a 501 in the envelope, where Node closed the socket without a word', async () => {
    await withTracedServer({}, async (port, traced) => {
      const answer = parse(await raw(port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']))
      expect(answer.status).toBe(501)
      expect(answer.body).toEqual({ success: false, error: 'Not Implemented: CONNECT is for proxies, and this server is not one', code: 501 })
      expect(answer.headers['connection']).toBe('close')
      expect(answer.headers['x-service-trace-id']).toMatch(TRACE_ID_PATTERN)
      expect(traced).toEqual([expect.objectContaining({ status: 501 })])
    })
  })

  it('an HTTP/1.0 request without Host is still served (Host is HTTP/1.1\'s)', async () => {
    await withTracedServer({}, async (port) => {
      const answer = parse(await raw(port, ['POST /api/upload HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}']))
      expect(answer.status).toBe(200)
    })
  })
})

describe('a dot segment written percent-encoded is a 400, so a proxy and svc agree on the route', () => {
  it.each([
    ['%2E%2E', '/api/x/y/%2E%2E/%2E%2E/upload', '/api/upload', '%2E%2E', '..'],
    ['%2e%2e, lower case', '/api/x/%2e%2e/upload', '/api/upload', '%2e%2e', '..'],
    ['.%2e', '/api/x/.%2e/upload', '/api/upload', '.%2e', '..'],
    ['%2e.', '/api/x/%2e./upload?q=1', '/api/upload', '%2e.', '..'],
    ['%2E alone', '/api/%2E/upload', '/api/upload', '%2E', '.'],
    ['%2E%2E last', '/api/upload/%2E%2E', '/api/', '%2E%2E', '..'],
  ])('%s', async (_name, target, tracedPath, segment, reads) => {
    await withTracedServer({}, async (port, traced) => {
      // It reached the route the URL parser resolves it to (POST /api/upload answered 200).
      const answer = parse(await raw(port, [`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`]))
      const message = `Bad Request: the path holds a dot segment written encoded (${segment}), which a proxy reads as a name and a URL parser as "${reads}"; send the path with its dot segments resolved`
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ success: false, error: message, code: 400 })
      expect(answer.headers['x-service-trace-id']).toMatch(TRACE_ID_PATTERN)
      expect(traced).toEqual([expect.objectContaining({ method: 'POST', path: tracedPath, status: 400, error: message })])
    })
  })

  it('a dot inside a name, %2E within a segment, three dots, an encoded slash and a dot in the query are left alone', async () => {
    await withTracedServer({}, async (port) => {
      // '.%2E.' and '%2E%2E%2E' are three dots: a name, not a dot segment.
      for (const target of ['/api/upload?next=/a/%2E%2E/b', '/api/up%2Eload', '/api/x%2E%2E/..', '/api/a%2Fb', '/api/.%2E.', '/api/%2E%2E%2E']) {
        const answer = parse(await raw(port, [`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`]))
        expect(answer.status, target).not.toBe(400)
      }
    })
  })
})

describe('requests that do not arrive in time: 408 in the envelope, the connection closed', () => {
  it('a stalled upload (half of a 1 MiB body, then nothing) is answered 408 and let go', async () => {
    await withTracedServer({}, async (port, traced) => {
      const head = `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024}\r\n\r\n`
      const answer = parse(await raw(port, [head, Buffer.alloc(512 * 1024, 0x20)]))
      expect(answer.status).toBe(408)
      expect(answer.body).toEqual({ success: false, error: 'Request Timeout: the request did not arrive in time', code: 408 })
      expect(answer.headers['x-service-trace-id']).toMatch(TRACE_ID_PATTERN)
      expect(traced.some((trace) => trace.status === 408)).toBe(true)
    }, 300)
  })

  it('a stalled upload the app is reading is traced once, as the request it was: POST /api/upload 408, the answer sent', async () => {
    const { app, traced } = tracedApp()
    const server = await serve(app, { port: 0, host: '127.0.0.1', requestTimeoutMs: 300 })
    try {
      const head = `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`
      const answer = parse(await raw(server.port, [head, '{"title":"cut']))
      expect(answer.status).toBe(408)
      expect(answer.body).toEqual({ success: false, error: 'Request Timeout: the request did not arrive in time', code: 408 })
      expect(answer.headers.connection).toBe('close')
      // The refusal's own trace, if any, is written before the answer goes out; the app's when its handler ends.
      await vi.waitFor(() => expect(traced.some((trace) => trace.path === '/api/upload')).toBe(true))
    } finally {
      await server.close()
    }
    // There were two: the app's, a 400 the client never got ("the connection closed before the body was complete"),
    // and the refusal's, a 408 named GET / (Node keeps no request line once the headers are parsed).
    expect(traced).toEqual([{ method: 'POST', path: '/api/upload', status: 408, ip: '127.0.0.1', error: 'Request Timeout: the request did not arrive in time' }])
  })

  it('headers that never finish (slowloris) are answered 408, traced as `- /`: nothing of the request could be read', async () => {
    await withTracedServer({}, async (port, traced) => {
      const answer = parse(await raw(port, ['GET /api/x HTTP/1.1\r\nHost: x\r\nX-Slow: ']))
      expect(answer.status).toBe(408)
      expect(answer.headers['x-service-trace-id']).toMatch(TRACE_ID_PATTERN)
      // It was traced as `GET /`, which a real request to / also is: Node keeps no byte of headers that timed out.
      expect(traced).toEqual([{ method: '-', path: '/', status: 408, ip: '127.0.0.1', error: 'Request Timeout: the request did not arrive in time' }])
    }, 300)
  })

  it('a stalled body the app never reads is traced once, as the request it was, with the 408 the client got', async () => {
    const traced: Traced[] = []
    const tracer: Tracer = {
      begin: (): RequestRecorder => ({ startedAt: performance.now(), recordQuery() {}, recordMiddleware() {} }),
      end(c: Context, response: Response) {
        traced.push({ method: c.method, path: c.path, status: response.status, ip: c.ip, error: (c.error as Error | undefined)?.message })
      },
    }
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let handlerDone = false
    // A handler at work on something else (its body unread) when the body stalls.
    const app = createApp({
      config: testConfig(),
      tracer,
      api: defineRoutes((r) =>
        r.post('/busy', async () => {
          await released
          handlerDone = true
          return { ok: true }
        }),
      ),
    })
    const server = await serve(app, { port: 0, host: '127.0.0.1', requestTimeoutMs: 300 })
    try {
      const head = 'POST /api/busy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Client: test\r\n\r\n'
      const answer = parse(await raw(server.port, [head, '{"title":"cut']))
      expect(answer.status).toBe(408)
      // The app answers after the 408 went out: its answer cannot reach the client, and is not traced.
      release()
      await vi.waitFor(() => expect(handlerDone).toBe(true))
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      await server.close()
    }
    // There were two: `GET /` 408 (Node keeps no request line once the headers are parsed) and the app's 200, never sent.
    expect(traced).toEqual([{ method: 'POST', path: '/api/busy', status: 408, ip: '127.0.0.1', error: 'Request Timeout: the request did not arrive in time' }])
  })

  it('REQUEST_TIMEOUT_MS sets the limit (30 s by default)', async () => {
    const { app } = tracedApp({ REQUEST_TIMEOUT_MS: '250' })
    const server = await serve(app, { port: 0, host: '127.0.0.1' })
    try {
      expect(parse(await raw(server.port, ['GET /api/x HTTP/1.1\r\nHost: x\r\n'])).status).toBe(408)
    } finally {
      await server.close()
    }
    const { DEFAULT_REQUEST_TIMEOUT_MS } = await import('svc/node')
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(30_000)
  })
})
