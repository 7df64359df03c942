/**
 * `svc benchmark` on a copy of the example: every GET route timed through
 * app.fetch with sample parameter values that reach that very route, a route
 * no sample can reach skipped with the reason, `--as` for routes behind
 * auth, nothing traced, progress on stderr.
 */
import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(async () => {
  app = copyExampleApp()
  writeFileSync(app.path('.env'), `JWT_SECRET=${'b'.repeat(40)}\nADMIN_PASSWORD=admin-password-1234\nUSER_PASSWORD=user-password-1234\n`)
  app.addRoutes(
    'web.ts',
    `  r.get('/codes/{code}', (c) => ({ code: c.params.code })).where('code', /[A-Z]{5}-\\d{9}/)
  r.get('/broken', () => {
    throw new Error('benchmark boom')
  })`,
  )
  expect((await runSvc(['migrate:fresh', '--seed'], { cwd: app.dir, env: { ADMIN_PASSWORD: 'admin-password-1234', USER_PASSWORD: 'user-password-1234' } })).exitCode).toBe(0)
})
afterAll(() => app?.remove())

describe('svc benchmark', () => {
  it('times every GET route through app.fetch; parameters get values that reach the route; unreachable ones are skipped', async () => {
    const result = await runSvc(['benchmark', '--iterations=3', '--json'], { cwd: app.dir })
    expect(result.exitCode, result.stderr).toBe(0)
    const report = JSON.parse(result.stdout)
    const { routes } = await svcJson(['route:list', '--method=GET'], { cwd: app.dir })
    const declared = routes.map((route: { path: string }) => route.path).sort()
    expect([...report.routes.map((r: { path: string }) => r.path), ...report.skipped.map((r: { path: string }) => r.path)].sort()).toEqual(declared)
    expect(report).toMatchObject({ iterations: 3, warmup: 3, as: null })
    for (const route of report.routes) {
      expect(Object.values(route.statuses as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(3)
      expect(route.min_ms <= route.p50_ms && route.p50_ms <= route.p95_ms && route.p95_ms <= route.max_ms).toBe(true)
    }
    const byPath = Object.fromEntries(report.routes.map((r: { path: string }) => [r.path, r]))
    expect(byPath['/api/v1/posts/{id}'].url).toBe('/api/v1/posts/1')
    expect(byPath['/api/v1/posts/{id}'].statuses).toEqual({ '200': 3 }) // the seeded posts
    expect(byPath['/api/v1/posts/{slug}'].url).toBe('/api/v1/posts/example') // not "1", which {id} takes first
    expect(byPath['/api/v1/posts/archive/{year?}'].url).toBe('/api/v1/posts/archive')
    expect(byPath['/api/auth/me'].statuses).toEqual({ '401': 3 })
    expect(report.skipped).toEqual([{ method: 'GET', path: '/codes/{code}', reason: 'no sample value satisfies {code} ([A-Z]{5}-\\d{9})' }])
    // A failing route: its 500s counted, the app's error report said once (not once per request).
    expect(byPath['/broken'].statuses).toEqual({ '500': 3 })
    expect(result.stderr.match(/\[svc\] 500 GET \/broken/g)).toHaveLength(1)
    expect(result.stderr).toContain('benchmark boom')
    expect(result.stderr).toContain('(the app reported 6 errors while measuring; the first is above)') // 3 warm-up + 3 measured
    // Not a terminal: one plain progress line per route, on stderr.
    expect(result.stderr).toContain(`[1/${report.routes.length}] GET `)
  })

  it('--as signs a token for routes behind auth; nothing is traced', async () => {
    const report = await svcJson(['benchmark', '--iterations=2', '--as=admin@example.com'], { cwd: app.dir })
    expect(report.as).toBe('admin@example.com')
    expect(report.routes.find((r: { path: string }) => r.path === '/api/auth/me').statuses).toEqual({ '200': 2 })
    const traces = await svcJson(['trace:list'], { cwd: app.dir })
    expect(traces.traces).toEqual([])

    const human = await runSvc(['benchmark', '--iterations=2'], { cwd: app.dir })
    expect(human.stdout).toMatch(/^METHOD +ROUTE +REQUESTED +STATUS +P50 +P95 +MAX +REQ\/S$/m)
    expect(human.stdout).toMatch(/^GET +\/api\/v1\/posts\/\{slug\} +\/api\/v1\/posts\/example +404 /m)
    expect(human.stdout).toContain('skipped GET /codes/{code}: no sample value satisfies {code}')
    expect(human.stderr).toContain('Routes behind auth answered 401: --as=<email>')
  })
})
