/**
 * The Node adapter (`svc/node`'s `serve`): what goes on the wire, and the
 * graceful stop (in-flight requests finish, then `onClose` runs).
 */
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { afterResponse, createApp, defineRoutes } from 'svc'
import { testConfig } from '../helpers/app.ts'
import { startServer, withServer } from '../helpers/server.ts'

function rawGet(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }))
    })
      .on('error', reject)
      .end()
  })
}

describe('serve', () => {
  it('binds 127.0.0.1 on a free port when asked for port 0', async () => {
    const app = createApp({ config: testConfig() })
    await withServer(app, async (server) => {
      expect(server.host).toBe('127.0.0.1')
      expect(server.port).toBeGreaterThan(0)
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
    })
  })

  it('sends small JSON with Content-Length, not chunked', async () => {
    const app = createApp({ config: testConfig(), web: defineRoutes((r) => r.get('/hello', () => ({ hello: 'world' }))) })
    await withServer(app, async (server) => {
      const { status, headers, body } = await rawGet(`${server.url}/hello`)
      expect(status).toBe(200)
      expect(headers['transfer-encoding']).toBeUndefined()
      expect(headers['content-length']).toBe(String(Buffer.byteLength(body)))
      expect(JSON.parse(body)).toEqual({ success: true, data: { hello: 'world' } })
    })
  })

  it('stops gracefully: the in-flight request completes (with Connection: close), then onClose runs', async () => {
    const events: string[] = []
    let started!: () => void
    const handlerStarted = new Promise<void>((resolve) => (started = resolve))
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const app = createApp({
      config: testConfig(),
      web: defineRoutes((r) =>
        r.get('/slow', async () => {
          started()
          await released
          events.push('handler done')
          return { slow: true }
        }),
      ),
    })
    const server = await startServer(app, { onClose: () => void events.push('onClose') })
    const inFlight = fetch(`${server.url}/slow`)
    await handlerStarted

    const closed = server.close().then(() => events.push('closed'))
    await expect(fetch(`${server.url}/slow`)).rejects.toThrow() // no new connections once closing
    expect(events).toEqual([])
    release()

    const response = await inFlight
    expect(response.status).toBe(200)
    expect(response.headers.get('connection')).toBe('close')
    expect(await response.json()).toEqual({ success: true, data: { slow: true } })
    await closed
    expect(events).toEqual(['handler done', 'onClose', 'closed'])
  })

  it('stops gracefully after the work a request left running (afterResponse): onClose runs once it settles', async () => {
    const events: string[] = []
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const app = createApp({
      config: testConfig(),
      web: defineRoutes((r) =>
        r.post('/signup', (c) => {
          // As auth's mails: answered first, the mail sent after (it needs the database and mailer onClose closes).
          afterResponse(c, released.then(() => void events.push('mail sent')))
          return { signed_up: true }
        }),
      ),
    })
    const server = await startServer(app, { onClose: () => void events.push('onClose') })
    const response = await fetch(`${server.url}/signup`, { method: 'POST' })
    expect(response.status).toBe(200)
    await response.text()

    const closed = server.close().then(() => events.push('closed'))
    // Given time to finish (it takes a few milliseconds when nothing waits), the stop has not closed the app:
    // the mail still runs. This cannot fail when the stop waits, whatever the machine's speed.
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 200))])
    expect(events).toEqual([])
    release()
    await closed
    expect(events).toEqual(['mail sent', 'onClose', 'closed'])
  })
})
