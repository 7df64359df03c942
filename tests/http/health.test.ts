/**
 * The health probes: /health/live always 200 while the process answers;
 * /health/ready runs every check (the database's `select 1` with its
 * duration) and answers 503 naming each failing one.
 */
import { createServer } from 'node:net'
import { createClient } from '@libsql/client'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp, createDatabase, type Database } from 'svc'
import { openDatabase } from 'svc/node'
import { createTestClient } from 'svc/testing'
import { tempDir, testConfig } from '../helpers/app.ts'

const cleanup: Array<() => void> = []
afterEach(() => {
  while (cleanup.length > 0) cleanup.pop()!()
})

async function database(): Promise<Database> {
  const dir = tempDir('svc-health-')
  const db = await openDatabase({ storageDir: dir.path, projectDir: dir.path })
  cleanup.push(() => {
    db.close()
    dir.remove()
  })
  return db
}

describe('health probes', () => {
  it('GET /health/live => 200 { success: true, data: { status: "ok" } }', async () => {
    const client = createTestClient(createApp({ config: testConfig() }))
    const { status, body } = await client.get('/health/live')
    expect(status).toBe(200)
    expect(body).toStrictEqual({ success: true, data: { status: 'ok' } })
  })

  it('GET /health/ready => 200 with the database check and its duration', async () => {
    const client = createTestClient(createApp({ config: testConfig(), database: await database() }))
    const { status, body } = await client.get('/health/ready')
    expect(status).toBe(200)
    expect(body.success).toBe(true)
    expect(body.data.status).toBe('ok')
    expect(body.data.checks.database).toMatchObject({ status: 'ok' })
    expect(typeof body.data.checks.database.duration_ms).toBe('number')
  })

  it('GET /health/ready => 503 naming the database when it is closed', async () => {
    const db = await database()
    const client = createTestClient(createApp({ config: testConfig(), database: db }))
    db.close()
    const { status, body } = await client.get('/health/ready')
    expect(status).toBe(503)
    expect(body).toMatchObject({ success: false, code: 503, error: 'Service Unavailable: database failed' })
    expect(body.data.status).toBe('fail')
    expect(body.data.checks.database.status).toBe('fail')
    expect(body.data.checks.database.error).toMatch(/closed/i)
  })

  it('GET /health/ready => 503 naming the database when its server cannot be reached', async () => {
    // A libSQL server URL on a port nobody listens on (taken, then freed).
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const db = createDatabase(createClient({ url: `http://127.0.0.1:${port}` }))
    cleanup.push(() => db.close())

    const { status, body } = await createTestClient(createApp({ config: testConfig(), database: db })).get('/health/ready')
    expect(status).toBe(503)
    expect(body.error).toBe('Service Unavailable: database failed')
    expect(body.data.checks.database.status).toBe('fail')
    expect(body.data.checks.database.error.length).toBeGreaterThan(0)
  })

  it('names every failing check and keeps the passing ones', async () => {
    const app = createApp({
      config: testConfig(),
      database: await database(),
      healthChecks: {
        cache: async () => {
          throw new Error('connection refused')
        },
        queue: async () => ({ depth: 3 }),
        mail: async () => {
          throw new Error('smtp down')
        },
      },
    })
    const { status, body } = await createTestClient(app).get('/health/ready')
    expect(status).toBe(503)
    expect(body.error).toBe('Service Unavailable: cache, mail failed')
    expect(body.data.checks.cache).toMatchObject({ status: 'fail', error: 'connection refused' })
    expect(body.data.checks.mail).toMatchObject({ status: 'fail', error: 'smtp down' })
    expect(body.data.checks.queue).toMatchObject({ status: 'ok', depth: 3 })
    expect(body.data.checks.database).toMatchObject({ status: 'ok' })
  })

  it('HEAD /health/live answers 200 without a body (load balancers use it)', async () => {
    const response = await createApp({ config: testConfig() }).fetch(new Request('http://localhost/health/live', { method: 'HEAD' }))
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('')
  })

  it("HEAD /health/live states the GET's Content-Length, not 0 for the body it leaves out", async () => {
    const app = createApp({ config: testConfig() })
    const get = await app.fetch(new Request('http://localhost/health/live'))
    const head = await app.fetch(new Request('http://localhost/health/live', { method: 'HEAD' }))
    expect(head.headers.get('content-length')).toBe(String((await get.arrayBuffer()).byteLength))
  })
})
