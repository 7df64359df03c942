/**
 * Maintenance mode, through `app.fetch` with the state source injected as
 * the CLI injects it: 503 with the envelope and Retry-After for every
 * request (matched, unmatched, OPTIONS) except /health/live, allowed client
 * addresses (after the trusted-proxy rule: a forged X-Forwarded-For does not
 * get in) and the bypass secret (header, cookie, or `/<secret>` which sets
 * the cookie); /health/ready is 503 for everyone. The Node state file is
 * stat'ed at most once per poll interval and read only when it changed.
 */
import { mkdirSync, writeFileSync, statSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createApp, defineRoutes, type App, type MaintenanceState } from 'svc'
import { maintenanceFile, readMaintenanceFile, removeMaintenanceFile, writeMaintenanceFile } from 'svc/node'
import { createTestClient } from 'svc/testing'
import { sha256Hex } from '../../framework/auth/digest.ts'
import { isAllowed } from '../../framework/middleware/maintenance/index.ts'
import { pollMaintenanceFile } from '../../framework/middleware/maintenance/state-file.ts'
import { copyExampleApp } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { tempDir, testConfig } from '../helpers/app.ts'

const SECRET = 'open-sesame-42'

async function downState(overrides: Partial<MaintenanceState> = {}): Promise<MaintenanceState> {
  return { since: '2026-01-01T00:00:00.000Z', message: 'Upgrading the database.', retry: 120, allow: [], secret_sha256: await sha256Hex(SECRET), ...overrides }
}

function maintainedApp(state: () => MaintenanceState | undefined, trustedProxies = ''): App {
  return createApp({
    config: testConfig({ TRUSTED_PROXIES: trustedProxies }),
    api: defineRoutes((r) => r.get('/posts', () => ({ posts: [] }))),
    maintenance: state,
  })
}

describe('maintenance mode (framework middleware)', () => {
  it('up: requests pass untouched', async () => {
    const client = createTestClient(maintainedApp(() => undefined))
    expect((await client.get('/api/posts')).status).toBe(200)
  })

  it('down: 503 with the envelope and Retry-After, for routes, unknown paths and OPTIONS alike', async () => {
    const state = await downState()
    const client = createTestClient(maintainedApp(() => state))
    for (const [method, path] of [['GET', '/api/posts'], ['GET', '/nope'], ['DELETE', '/api/posts'], ['OPTIONS', '/api/posts']] as const) {
      const response = await client.request(method, path)
      expect(response.status, `${method} ${path}`).toBe(503)
      expect(response.headers.get('retry-after')).toBe('120')
      expect(response.headers.get('x-service-trace-id')).toMatch(/^svc_/)
      if (method !== 'OPTIONS') {
        expect(response.body).toEqual({ success: false, error: 'Upgrading the database.', code: 503, maintenance: { since: state.since, retry_after: 120 } })
      }
    }
  })

  it('/health/live stays 200; /health/ready is 503 even for an allowed address or the secret', async () => {
    const state = await downState({ allow: ['127.0.0.1'] })
    const client = createTestClient(maintainedApp(() => state))
    expect((await client.get('/health/live', { clientAddress: '203.0.113.1' })).status).toBe(200)
    expect((await client.get('/health/ready')).status).toBe(503)
    expect((await client.get('/health/ready', { headers: { 'X-Maintenance-Bypass': SECRET } })).status).toBe(503)
  })

  it('allowed addresses pass: exact, IPv4 range, IPv4-mapped IPv6, IPv6', async () => {
    const state = await downState({ allow: ['203.0.113.7', '10.0.0.0/8', '2001:db8::1'] })
    const client = createTestClient(maintainedApp(() => state))
    for (const address of ['203.0.113.7', '10.20.30.40', '::ffff:203.0.113.7', '2001:DB8::1']) {
      expect((await client.get('/api/posts', { clientAddress: address })).status, address).toBe(200)
    }
    for (const address of ['203.0.113.8', '11.0.0.1', '2001:db8::2']) {
      expect((await client.get('/api/posts', { clientAddress: address })).status, address).toBe(503)
    }
  })

  it('a forged X-Forwarded-For does not get in; a trusted proxy\'s does', async () => {
    const state = await downState({ allow: ['203.0.113.7'] })
    const direct = createTestClient(maintainedApp(() => state))
    expect((await direct.get('/api/posts', { clientAddress: '198.51.100.9', headers: { 'X-Forwarded-For': '203.0.113.7' } })).status).toBe(503)

    const proxied = createTestClient(maintainedApp(() => state, '10.0.0.1'))
    expect((await proxied.get('/api/posts', { clientAddress: '10.0.0.1', headers: { 'X-Forwarded-For': '203.0.113.7' } })).status).toBe(200)
    // The client wrote the allowed address itself; the proxy appended the real one.
    expect((await proxied.get('/api/posts', { clientAddress: '10.0.0.1', headers: { 'X-Forwarded-For': '203.0.113.7, 198.51.100.9' } })).status).toBe(503)
    // Not from the proxy: its header is the client's own.
    expect((await proxied.get('/api/posts', { clientAddress: '198.51.100.9', headers: { 'X-Forwarded-For': '203.0.113.7' } })).status).toBe(503)
  })

  it('the secret passes in the header or the cookie; /<secret> sets the cookie; a wrong one does not', async () => {
    const state = await downState()
    const client = createTestClient(maintainedApp(() => state))
    expect((await client.get('/api/posts', { headers: { 'X-Maintenance-Bypass': SECRET } })).status).toBe(200)
    expect((await client.get('/api/posts', { headers: { cookie: `theme=dark; svc_maintenance=${SECRET}` } })).status).toBe(200)
    expect((await client.get('/api/posts', { headers: { 'X-Maintenance-Bypass': `${SECRET}x` } })).status).toBe(503)
    expect((await client.get('/api/posts', { headers: { cookie: 'svc_maintenance=guess' } })).status).toBe(503)

    const opened = await client.get(`/${SECRET}`)
    expect(opened.status).toBe(302)
    expect(opened.headers.get('location')).toBe('/')
    expect(opened.headers.get('set-cookie')).toBe(`svc_maintenance=${SECRET}; Path=/; HttpOnly; SameSite=Lax; Max-Age=43200`)
    expect((await client.post(`/${SECRET}`)).status).toBe(503)
    expect((await client.get('/wrong-secret')).status).toBe(503)

    const withoutSecret = createTestClient(maintainedApp(() => ({ ...state, secret_sha256: undefined })))
    expect((await withoutSecret.get('/api/posts', { headers: { 'X-Maintenance-Bypass': SECRET } })).status).toBe(503)
  })

  it('isAllowed: nothing allowed without an address', () => {
    expect(isAllowed(undefined, ['127.0.0.1'])).toBe(false)
    expect(isAllowed('127.0.0.1', [])).toBe(false)
    expect(isAllowed('192.168.1.1', ['0.0.0.0/0'])).toBe(true)
  })
})

describe('the state file (Node adapter)', () => {
  const dir = tempDir('svc-maintenance-')
  afterAll(() => dir.remove())

  it('is stat\'ed at most once per interval and read only when it changed; changes are seen within the interval', async () => {
    const path = join(dir.path, 'maintenance.json')
    let time = 0
    let stats = 0
    let reads = 0
    const source = maintenanceFile(path, {
      pollMs: 1000,
      now: () => time,
      fs: {
        stat: (file) => (stats++, statSync(file, { throwIfNoEntry: false })),
        read: (file) => (reads++, readFileSync(file, 'utf8')),
      },
    })
    expect(source()).toBeUndefined()
    writeMaintenanceFile(path, await downState())
    for (let i = 0; i < 1000; i++) expect(source()).toBeUndefined() // a thousand requests, no file access
    expect([stats, reads]).toEqual([1, 0])
    time = 999
    expect(source()).toBeUndefined()
    time = 1000
    expect(source()).toMatchObject({ message: 'Upgrading the database.', retry: 120 })
    expect([stats, reads]).toEqual([2, 1])
    time = 2000
    source()
    expect([stats, reads]).toEqual([3, 1]) // unchanged: stat'ed, not read
    removeMaintenanceFile(path)
    time = 3000
    expect(source()).toBeUndefined()
  })

  it('a file that cannot be read as a state still means down, with the defaults', () => {
    const path = join(dir.path, 'broken.json')
    writeFileSync(path, '{"message": "half writ')
    expect(readMaintenanceFile(path)).toMatchObject({ message: 'The service is down for maintenance; try again shortly.', retry: 60, allow: [] })
    expect(maintenanceFile(path)()).toMatchObject({ retry: 60 })
  })
})

describe('svc down / svc up', () => {
  const app = copyExampleApp()
  afterAll(() => app.remove())

  it('down writes the state (secret hashed, never stored), --json; up removes it', async () => {
    const down = await svcJson(['down', '--message', 'Back at 10:00', '--retry', '600', '--allow', '203.0.113.7', '--allow', '10.0.0.0/8', '--secret', SECRET], { cwd: app.dir })
    const file = app.path('storage', 'maintenance.json')
    expect(down).toEqual({ down: true, was_down: false, file, state: { since: expect.any(String), message: 'Back at 10:00', retry: 600, allow: ['203.0.113.7', '10.0.0.0/8'], secret: true } })
    const stored = readFileSync(file, 'utf8')
    expect(stored).not.toContain(SECRET)
    expect(JSON.parse(stored).secret_sha256).toBe(await sha256Hex(SECRET))
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600')

    const again = await svcJson(['down'], { cwd: app.dir })
    expect(again).toMatchObject({ down: true, was_down: true, state: { since: down.state.since, retry: 60, allow: [], secret: false } })

    const human = await runSvc(['down', '--secret', SECRET], { cwd: app.dir })
    expect(human.stdout).toContain(`X-Maintenance-Bypass: ${SECRET}`)
    expect(human.stderr).toContain('/health/live stays 200')

    expect(await svcJson(['up'], { cwd: app.dir })).toEqual({ down: false, was_down: true, file, state: null })
    expect((await runSvc(['up'], { cwd: app.dir })).stdout).toBe('The app was not down.\n')
  })

  it('refuses a bad --allow or a secret that cannot be a URL path segment', async () => {
    for (const allow of ['localhost', '10.0.0.0/33', '300.1.1.1', '1.2.3']) {
      const { exitCode, stderr } = await runSvc(['down', `--allow=${allow}`], { cwd: app.dir })
      expect(exitCode, allow).toBe(1)
      expect(stderr).toContain(`error [E_BAD_OPTION]: --allow takes an IP address or an IPv4 range, got "${allow}"`)
    }
    for (const secret of ['short', 'has space in it', 'slash/in/it']) {
      const { exitCode, stderr } = await runSvc(['down', `--secret=${secret}`], { cwd: app.dir })
      expect(exitCode, secret).toBe(1)
      expect(stderr).toContain('--secret takes at least 8 letters')
    }
    expect(readMaintenanceFile(app.path('storage', 'maintenance.json'))).toBeUndefined()
  })

  it('MAINTENANCE_FILE puts the state elsewhere (a shared volume for several hosts)', async () => {
    const shared = app.path('shared')
    mkdirSync(shared)
    const down = await svcJson(['down'], { cwd: app.dir, env: { MAINTENANCE_FILE: 'shared/down.json' } })
    expect(down.file).toBe(join(shared, 'down.json'))
    expect(readMaintenanceFile(join(shared, 'down.json'))).toBeDefined()
    rmSync(shared, { recursive: true })
  })
})

describe('the state file through asynchronous calls (the Bun adapter\'s)', () => {
  it('requests that arrive while the file is being looked at wait for that look, and share it', async () => {
    let time = 0
    let looks = 0
    let content: string | undefined
    let answerLook: (identity: string | undefined) => void = () => {}
    const source = pollMaintenanceFile(
      'maintenance.json',
      {
        identity: () => (looks++, new Promise<string | undefined>((resolve) => (answerLook = resolve))),
        read: async () => content ?? '',
      },
      { pollMs: 1000, now: () => time },
    )
    content = JSON.stringify(await downState())
    const first = source()
    const second = source() // meanwhile: not answered from the old (up) state
    answerLook('1:100:5')
    expect(await first).toMatchObject({ message: 'Upgrading the database.', retry: 120 })
    expect(await second).toMatchObject({ message: 'Upgrading the database.' })
    expect(looks).toBe(1)
    expect(source()).toMatchObject({ retry: 120 }) // within the interval: the state seen, no look
    time = 1000
    const third = source()
    answerLook(undefined) // `svc up` removed it
    expect(await third).toBeUndefined()
    expect(looks).toBe(2)
  })

  it('a file that cannot be read still means down', async () => {
    const source = pollMaintenanceFile('maintenance.json', { identity: async () => '1:1:1', read: () => Promise.reject(new Error('EACCES')) })
    expect(await source()).toMatchObject({ retry: 60 })
  })
})
