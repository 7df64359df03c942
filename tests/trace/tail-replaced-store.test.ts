/**
 * `log:tail` following a store that is deleted while it runs (`rm -rf
 * storage/`, or `traces.sqlite` alone): it read on from the deleted file and
 * printed nothing more, while the server wrote into the new one.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { tracedGet } from '../helpers/traced-request.ts'
import { startSvc } from '../helpers/run-svc.ts'

let app: AppCopy

beforeAll(() => {
  app = copyExampleApp('blog')
  app.write('.env', 'APP_ENV=development\nJWT_SECRET=tail-replaced-store-secret-0123456789abcdef\n')
})

afterAll(() => app?.remove())


it('log:tail follows the new store when the one it read is deleted, printing the traces written there', async () => {
  const first = await tracedGet(app.dir, '/health/live')
  const tail = startSvc(['log:tail', '--json', '--lines', '1'], { cwd: app.dir })
  try {
    await tail.waitFor(new RegExp(`"trace_id":"${first}"`))
    for (const file of ['traces.sqlite', 'traces.sqlite-wal', 'traces.sqlite-shm']) rmSync(app.path('storage', file), { force: true })
    const after = await tracedGet(app.dir, '/health/live?after=deletion')
    await tail.waitFor(new RegExp(`"trace_id":"${after}"`))
    expect(tail.output.stderr).toContain('storage/traces.sqlite was deleted')
  } finally {
    expect((await tail.stop()).exitCode).toBe(0)
  }
})
