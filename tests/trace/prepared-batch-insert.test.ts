/**
 * The writers' batch insert on Node (`traceBatchInsert`): prepared once, on
 * a libsql connection of its own, instead of through `@libsql/client`, which
 * prepares it again at every batch (docs/benchmarks.md, "Nineteenth pass").
 * What it must keep: every batch readable, the dropped counter in the same
 * transaction as its batch, a lock refused as a lock (the writer tries again
 * on it), and its connection closed with the store.
 */
import { join } from 'node:path'
import { createClient, type Client } from '@libsql/client'
import Libsql from 'libsql'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { encodeBatch } from '../../framework/trace/batch-codec.ts'
import { INSERT_BATCH_SQL, isLockError, type TraceStore } from '../../framework/trace/store.ts'
import { followTraceStoreFile, openTraceStore } from '../../framework/node/traces.ts'
import type { TraceRecord } from 'svc/trace'
import { tempDir } from '../helpers/app.ts'
import { traceRecord } from './helpers.ts'

let cleanup: Array<() => unknown> = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

function storageDir(): string {
  const dir = tempDir('svc-prepared-insert-')
  cleanup.push(() => dir.remove())
  return dir.path
}

const batchOf = (records: TraceRecord[]) => encodeBatch(records, records.map((record) => Date.parse(record.timestamp)))

async function storedIds(dir: string): Promise<string[]> {
  const reader = await openTraceStore({ storageDir: dir, projectDir: dir, create: false })
  try {
    const ids: string[] = []
    for await (const record of reader.newest()) ids.push(record.trace_id)
    return ids.sort()
  } finally {
    reader.close()
  }
}

/** Counts the statements the store's client runs that insert a batch. */
function clientInserts(store: TraceStore): () => number {
  const execute = vi.spyOn(store.db, 'execute')
  const batch = vi.spyOn(store.db, 'batch')
  return () =>
    execute.mock.calls.filter(([statement]) => statement === INSERT_BATCH_SQL).length +
    batch.mock.calls.flatMap(([statements]) => statements).filter((statement) => typeof statement === 'object' && statement.sql === INSERT_BATCH_SQL).length
}

describe('the trace writers\' prepared batch insert', () => {
  it('inserts every batch on one statement prepared once, not through the client, and each is read back', async () => {
    const dir = storageDir()
    const prepare = vi.spyOn(Libsql.prototype, 'prepare')
    const followed = await followTraceStoreFile({ storageDir: dir, projectDir: dir })
    cleanup.push(() => followed.close())
    const store = await followed.current()
    const inserts = clientInserts(store)

    await store.writeBatch(batchOf([traceRecord(1), traceRecord(2)]))
    await store.writeBatch(batchOf([traceRecord(3)]))
    await store.writeBatch(batchOf([traceRecord(4)]))

    expect(inserts()).toBe(0)
    expect(prepare.mock.calls.filter(([sql]) => sql === INSERT_BATCH_SQL)).toHaveLength(1)
    expect(await storedIds(dir)).toEqual([1, 2, 3, 4].map((n) => traceRecord(n).trace_id))
  })

  it('writes a batch that carries dropped traces through the client, with the counter, in one transaction', async () => {
    const dir = storageDir()
    const followed = await followTraceStoreFile({ storageDir: dir, projectDir: dir })
    cleanup.push(() => followed.close())
    const store = await followed.current()
    const inserts = clientInserts(store)

    expect(await store.writeBatch(batchOf([traceRecord(1)]), 3)).toBe(3)
    expect(inserts()).toBe(1)
    expect(await store.droppedCount()).toBe(3)
    expect(await storedIds(dir)).toEqual([traceRecord(1).trace_id])
  })

  it('is not opened by a store that only reads: its writes go through the client', async () => {
    const dir = storageDir()
    const store = await openTraceStore({ storageDir: dir, projectDir: dir })
    cleanup.push(() => store.close())
    const inserts = clientInserts(store)

    await store.writeBatch(batchOf([traceRecord(1)]))

    expect(inserts()).toBe(1)
  })

  it('refuses a batch at once while another connection holds the lock, as a lock error, and writes it once the lock is gone', async () => {
    const dir = storageDir()
    const followed = await followTraceStoreFile({ storageDir: dir, projectDir: dir, busyTimeoutMs: 0 })
    cleanup.push(() => followed.close())
    const store = await followed.current()
    await store.init()
    const locker: Client = createClient({ url: `file:${join(dir, 'traces.sqlite')}` })
    cleanup.push(() => locker.close())
    const held = await locker.transaction('write')
    await held.execute("insert into svc_trace_counters (name, value) values ('held', 1)")

    const refused = await store.writeBatch(batchOf([traceRecord(1)])).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(isLockError(refused)).toBe(true)

    await held.rollback()
    await store.writeBatch(batchOf([traceRecord(1)]))
    expect(await storedIds(dir)).toEqual([traceRecord(1).trace_id])
  })

  it('closes its connection with the store', async () => {
    const dir = storageDir()
    const prepare = vi.spyOn(Libsql.prototype, 'prepare')
    const close = vi.spyOn(Libsql.prototype, 'close')
    const followed = await followTraceStoreFile({ storageDir: dir, projectDir: dir })
    const store = await followed.current()
    const inserts = clientInserts(store)
    await store.writeBatch(batchOf([traceRecord(1)]))
    expect(inserts()).toBe(0)
    const own = prepare.mock.contexts[prepare.mock.calls.findIndex(([sql]) => sql === INSERT_BATCH_SQL)]
    // Booleans only: an assertion's message would inspect the closed connection, whose getters panic in the driver.
    expect(own instanceof Libsql).toBe(true)
    expect(close.mock.contexts.includes(own)).toBe(false)

    followed.close()

    expect(close.mock.contexts.includes(own)).toBe(true)
    await expect(store.writeBatch(batchOf([traceRecord(2)]))).rejects.toThrow(/closed/)
    expect(await storedIds(dir)).toEqual([traceRecord(1).trace_id])
  })
})
