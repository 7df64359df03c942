/**
 * `log:stats` and `log:top` count the requests that matched no route in one
 * entry per method, `(no route)` with its most frequent paths, not one entry
 * per path: a scan of random paths must not bury the app's routes. Read
 * through the commands' JSON, over a project store filled with records.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTraceStore } from 'svc/node'
import { NO_ROUTE, type StatsJson, type TopJson } from '../../cli/contract/traces.ts'
import { tempDir } from '../helpers/app.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { traceRecord } from './helpers.ts'

let project: ReturnType<typeof tempDir>

beforeAll(async () => {
  project = tempDir('svc-stats-no-route-')
  writeFileSync(join(project.path, 'package.json'), JSON.stringify({ name: 'stats-no-route', private: true, type: 'module', dependencies: { svc: '*' } }))
  const now = Date.now() - 60_000
  let n = 0
  const record = (method: string, path: string, route: string | null, duration: number) =>
    traceRecord(n, { method, path, route, duration_ms: duration, status_code: route === null ? 404 : 200, timestamp: new Date(now + n++).toISOString() })
  const scan = Array.from({ length: 40 }, (_, i) => record('GET', `/random-${i}`, null, 2))
  const store = await openTraceStore({ storageDir: join(project.path, 'storage'), projectDir: project.path })
  try {
    await store.writeRecords([
      ...scan,
      ...['/wp-login.php', '/wp-login.php', '/wp-login.php', '/.env', '/.env'].map((path) => record('GET', path, null, 3)),
      record('POST', '/xmlrpc.php', null, 1),
      record('GET', '/api/posts', '/api/posts', 10),
      record('GET', '/api/posts', '/api/posts', 20),
      record('GET', '/api/posts/{id}', '/api/posts/{id}', 5),
    ])
  } finally {
    store.close()
  }
})
afterAll(() => project?.remove())

const json = <T>(args: string[]) => svcJson<T>(args, { cwd: project.path })

describe('requests that matched no route', () => {
  it('are one log:top entry per method, with their most frequent paths', async () => {
    const { endpoints } = await json<TopJson>(['log:top'])
    expect(endpoints.map((entry) => `${entry.method} ${entry.route} ${entry.count}`)).toEqual(['GET /api/posts 2', 'GET /api/posts/{id} 1', `GET ${NO_ROUTE} 45`, `POST ${NO_ROUTE} 1`])
    const get = endpoints.find((entry) => entry.method === 'GET' && entry.route === NO_ROUTE)!
    expect(get).toMatchObject({ errors: 0, max_ms: 3 })
    expect(get.paths).toEqual([
      { path: '/wp-login.php', count: 3 },
      { path: '/.env', count: 2 },
      { path: '/random-0', count: 1 },
      { path: '/random-1', count: 1 },
      { path: '/random-10', count: 1 },
    ])
    expect(endpoints.find((entry) => entry.method === 'POST')!.paths).toEqual([{ path: '/xmlrpc.php', count: 1 }])
    expect(endpoints.filter((entry) => entry.route !== NO_ROUTE).every((entry) => entry.paths === null)).toBe(true)
  })

  it('are counted the same way by log:stats, which keeps the routes in view', async () => {
    const stats = await json<StatsJson>(['log:stats'])
    expect(stats.total).toBe(49)
    expect(stats.slowest_routes.map((entry) => `${entry.method} ${entry.route}`)).toEqual(['GET /api/posts', 'GET /api/posts/{id}', `GET ${NO_ROUTE}`, `POST ${NO_ROUTE}`])
  })

  it('name their paths in the human tables', async () => {
    const top = await runSvc(['log:top'], { cwd: project.path })
    expect(top.exitCode, top.stderr).toBe(0)
    expect(top.stdout).toContain(`${NO_ROUTE}: /wp-login.php (3), /.env (2), /random-0 (1), /random-1 (1), /random-10 (1), 37 more`)
    expect(top.stdout).not.toContain('/random-11')
  })
})
