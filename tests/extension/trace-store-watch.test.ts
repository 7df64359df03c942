/**
 * The language server's look at the trace store (`TraceStoreWatch`) when
 * the store is deleted under it (`rm -rf storage/`): it kept asking the
 * deleted file, which never changes, so the editor's Traces view never
 * refreshed again while the server recorded into a new store.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { TraceStoreWatch } from '../../cli/lsp/trace-store-watch.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, svcEnv, type AppCopy } from '../helpers/cli.ts'
import { tracedGet } from '../helpers/traced-request.ts'

let app: AppCopy

beforeAll(() => {
  app = copyExampleApp('blog')
  app.write('.env', 'APP_ENV=development\nJWT_SECRET=trace-store-watch-secret-0123456789abcdef\n')
})

afterAll(() => app?.remove())


const deleteStore = () => {
  for (const file of ['traces.sqlite', 'traces.sqlite-wal', 'traces.sqlite-shm']) rmSync(app.path('storage', file), { force: true })
}

it('tells of the store deleted, then of the traces written into the new one', async () => {
  await tracedGet(app.dir, '/health/live')
  let changes = 0
  const watch = new TraceStoreWatch(findProject(app.dir, svcEnv()), () => void changes++)
  try {
    expect(await watch.check()).toBe(false) // the first look only reads the mark
    await tracedGet(app.dir, '/health/live?second')
    expect(await watch.check()).toBe(true)

    deleteStore()
    // The traces the editor lists are gone with the file.
    expect(await watch.check()).toBe(true)
    expect(await watch.check()).toBe(false)
    await tracedGet(app.dir, '/health/live?after-deletion')
    expect(await watch.check()).toBe(true)

    // Deleted and written again between two looks.
    deleteStore()
    await tracedGet(app.dir, '/health/live?replaced')
    expect(await watch.check()).toBe(true)
    expect(changes).toBe(4)
  } finally {
    watch.close()
  }
})
