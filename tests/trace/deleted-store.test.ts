/**
 * A server's trace store deleted under it (`rm -rf storage/`, a user's way to
 * start afresh): SQLite keeps writing into the deleted file, so every later
 * trace was lost while `/health/ready` counted them written. The sinks `svc
 * serve` runs open the store again, at its path, when its file is gone.
 */
import { rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp, defineRoutes, TRACE_HEADER } from 'svc'
import { createTracer, resolveTraceConfig } from 'svc/trace'
import { openTraceStore, threadTraceSink, workerTraceSink, type WorkerTraceSink } from 'svc/node'
import { tempDir, testConfig } from '../helpers/app.ts'
import { request } from './helpers.ts'

let cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

const sinks: Record<string, (options: { storageDir: string; projectDir: string }) => Promise<WorkerTraceSink>> = {
  worker: workerTraceSink,
  thread: threadTraceSink,
}

describe.each(Object.keys(sinks))('TRACE_WRITER=%s, the storage folder deleted while the server runs', (writer) => {
  it('writes the later traces into a new store at the same path', async () => {
    const dir = tempDir('svc-trace-deleted-')
    cleanup.push(() => dir.remove())
    const storageDir = `${dir.path}/storage`
    const sink = await sinks[writer]!({ storageDir, projectDir: dir.path })
    const tracer = createTracer({ sink, config: resolveTraceConfig({ TRACE_FLUSH_MS: '60000' }) })
    cleanup.push(async () => {
      await tracer.close()
      await sink.close()
    })
    const app = createApp({
      config: testConfig(),
      tracer,
      api: defineRoutes((r) => {
        r.get('/ping', () => ({ pong: true }))
      }),
    })
    const send = async () => (await app.fetch(request('GET', '/api/ping'))).headers.get(TRACE_HEADER)!
    await send()
    await tracer.flush()

    rmSync(storageDir, { recursive: true, force: true })
    const later = [await send(), await send()]
    await tracer.flush()

    const store = await openTraceStore({ storageDir, projectDir: dir.path, create: false })
    cleanup.push(() => store.close())
    expect((await store.search({})).map((row) => row.trace_id).sort()).toEqual([...later].sort())
  })
})
