/**
 * `svc rate:status` beside a served copy of the example that throttles in the
 * database store: the counters of throttled requests by key, which ones are
 * blocked, `--clear` (a key, or a pattern) lets the client in again; with the
 * memory store it says why it cannot see the server's counters.
 */
import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, startSvc, svcJson, type RunningSvc } from '../helpers/run-svc.ts'

let app: AppCopy
let server: RunningSvc
let url: string
const KEY = 'throttle:2,1:GET /limited:ip:127.0.0.1'

beforeAll(async () => {
  app = copyExampleApp()
  writeFileSync(app.path('.env'), `JWT_SECRET=${'r'.repeat(40)}\nTHROTTLE_STORE=database\n`)
  app.addRoutes('web.ts', "  r.get('/limited', () => ({ ok: true })).middleware('throttle:2,1')")
  server = startSvc(['serve', '--port', '0', '--migrate'], { cwd: app.dir })
  url = (await server.waitFor(/listening on (http:\/\/\S+)/))[1]!
})
afterAll(async () => {
  await server?.stop()
  app?.remove()
})

const hit = async () => (await fetch(`${url}/limited`)).status

describe('svc rate:status', () => {
  it('lists the counters by key after throttled requests, and --clear lets the client in again', async () => {
    expect([await hit(), await hit(), await hit()]).toEqual([200, 200, 429])
    const status = await svcJson(['rate:status'], { cwd: app.dir })
    expect(status).toMatchObject({ store: 'database', cleared: null, note: null })
    const counter = status.counters.find((c: { key: string }) => c.key === KEY)
    expect(counter).toMatchObject({ hits: 3, throttle: { max_attempts: 2, decay_minutes: 1, scope: 'GET /limited', client: 'ip:127.0.0.1', blocked: true } })
    expect(counter.resets_in).toBeGreaterThan(0)
    expect(counter.resets_in).toBeLessThanOrEqual(60)

    const human = await runSvc(['rate:status'], { cwd: app.dir })
    expect(human.stdout).toMatch(new RegExp(`^${KEY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+3/2\\s+\\d+s\\s+blocked$`, 'm'))

    const cleared = await svcJson(['rate:status', `--clear=${KEY}`], { cwd: app.dir })
    expect(cleared.cleared).toBe(1)
    expect(cleared.counters.map((c: { key: string }) => c.key)).not.toContain(KEY)
    expect(await hit()).toBe(200)

    // A pattern: every counter of this client.
    await hit()
    expect((await svcJson(['rate:status', '--clear=*:ip:127.0.0.1'], { cwd: app.dir })).cleared).toBe(1)
    expect((await runSvc(['rate:status', '--clear=nothing-like-this'], { cwd: app.dir })).stdout).toContain('Cleared 0 counters matching nothing-like-this')
  })

  it('with the memory store, says the counters live in the serving process', async () => {
    const status = await svcJson(['rate:status'], { cwd: app.dir, env: { THROTTLE_STORE: 'memory' } })
    expect(status.store).toBe('memory')
    expect(status.note).toContain('THROTTLE_STORE=memory: the route throttles count inside the serving process')
    const human = await runSvc(['rate:status'], { cwd: app.dir, env: { THROTTLE_STORE: 'memory' } })
    expect(human.stderr).toContain('set THROTTLE_STORE=database to see and clear them here')
  })
})
