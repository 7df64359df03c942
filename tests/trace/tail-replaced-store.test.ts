/**
 * `log:tail` following a store that is deleted while it runs (`rm -rf
 * storage/`, or `traces.sqlite` alone): it read on from the deleted file and
 * printed nothing more, while the server wrote into the new one.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, svcEnv, type AppCopy } from '../helpers/cli.ts'
import { startSvc } from '../helpers/run-svc.ts'

let app: AppCopy

beforeAll(() => {
  app = copyExampleApp('blog')
  app.write('.env', 'APP_ENV=development\nJWT_SECRET=tail-replaced-store-secret-0123456789abcdef\n')
})

afterAll(() => app?.remove())

/** One request to the app built as `svc` builds it, traced into the project's store; its trace id. */
async function traced(path: string): Promise<string> {
  const loaded = await loadApp(findProject(app.dir, svcEnv()))
  try {
    const response = await loaded.app.fetch(new Request(`http://127.0.0.1:8080${path}`))
    await response.text()
    return response.headers.get('x-service-trace-id')!
  } finally {
    await loaded.close()
  }
}

it('log:tail follows the new store when the one it read is deleted, printing the traces written there', async () => {
  const first = await traced('/health/live')
  const tail = startSvc(['log:tail', '--json', '--lines', '1'], { cwd: app.dir })
  try {
    await tail.waitFor(new RegExp(`"trace_id":"${first}"`))
    for (const file of ['traces.sqlite', 'traces.sqlite-wal', 'traces.sqlite-shm']) rmSync(app.path('storage', file), { force: true })
    const after = await traced('/health/live?after=deletion')
    await tail.waitFor(new RegExp(`"trace_id":"${after}"`))
    expect(tail.output.stderr).toContain('storage/traces.sqlite was deleted')
  } finally {
    expect((await tail.stop()).exitCode).toBe(0)
  }
})
