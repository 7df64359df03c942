import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp, defineRoutes, TRACE_HEADER } from 'svc'
import { createTracer, REDACTED, resolveTraceConfig } from 'svc/trace'
import { openTraceStore, workerTraceSink, type WorkerTraceSink } from 'svc/node'
import { tempDir, testConfig } from '../helpers/app.ts'
import { request } from './helpers.ts'

let cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

describe('TRACE_WRITER=worker: batches written by a worker thread', () => {
  it('writes every trace, redacted, and flushes at close', async () => {
    const dir = tempDir('svc-trace-worker-')
    cleanup.push(() => dir.remove())
    const config = resolveTraceConfig({ TRACE_WRITER: 'worker', TRACE_FLUSH_MS: '60000' })
    const sink: WorkerTraceSink = await workerTraceSink({ storageDir: dir.path, projectDir: dir.path })
    const tracer = createTracer({ sink, config })
    const app = createApp({
      config: testConfig(),
      tracer,
      api: defineRoutes((r) => {
        r.post('/login', async (c) => ({ got: Object.keys((await c.body()) as object) }))
      }),
    })
    const ids: string[] = []
    for (let i = 0; i < 20; i++) {
      const response = await app.fetch(request('POST', '/api/login', { json: { email: `u${i}@example.com`, password: `secret-password-${i}` } }))
      ids.push(response.headers.get(TRACE_HEADER)!)
    }
    await tracer.close()
    await sink.close()
    const store = await openTraceStore({ storageDir: dir.path, projectDir: dir.path })
    cleanup.push(() => store.close())
    const rows = await store.search({})
    expect(new Set(rows.map((row) => row.trace_id))).toEqual(new Set(ids))
    const record = (await store.get(ids[3]!))!
    expect(record.body.content).toEqual({ email: 'u3@example.com', password: REDACTED })
    expect(record.response.body.content).toEqual({ success: true, data: { got: ['email', 'password'] } })
  })

  it('fails to start, naming the store error, when the store cannot be opened', async () => {
    const dir = tempDir('svc-trace-worker-')
    cleanup.push(() => dir.remove())
    writeFileSync(join(dir.path, 'not-a-dir'), '')
    const url = `file:${join(dir.path, 'not-a-dir', 'traces.sqlite')}`
    await expect(workerTraceSink({ url, storageDir: dir.path, projectDir: dir.path })).rejects.toThrow(/EEXIST|ENOTDIR|not a directory/i)
  })
})
