/**
 * The queue conformance suite (conformance.ts) on each driver: sync, the
 * database driver on a libSQL file, and the redis driver on a real
 * redis-server started for this file.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import { createQueue, databaseQueueDriver, defineJob, queueMigration, syncQueueDriver, type QueueDriver } from '../../framework/queue/index.ts'
import { redisQueueDriver } from '../../framework/node/redis-queue.ts'
import { startRedis, type RunningRedis } from '../helpers/redis.ts'
import { queueConformance } from './conformance.ts'

const dirs: string[] = []
let redis: RunningRedis
let prefixes = 0

beforeAll(async () => {
  redis = await startRedis()
})

afterAll(async () => {
  await redis?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

queueConformance('sync', {
  stores: false,
  open: async () => syncQueueDriver({ onFailed: () => {} }),
})

queueConformance('database', {
  stores: true,
  async open({ leaseMs }): Promise<QueueDriver> {
    const dir = mkdtempSync(join(tmpdir(), 'svc-queue-'))
    dirs.push(dir)
    const db = await openDatabase({ storageDir: dir, projectDir: dir })
    await migrate(db, [queueMigration])
    const driver = databaseQueueDriver(db, { leaseMs })
    return { ...driver, close: async () => db.close() }
  },
})

queueConformance('redis', {
  stores: true,
  async open({ leaseMs }) {
    return redisQueueDriver({ url: redis.url, prefix: `t${++prefixes}`, leaseMs })
  },
})

describe('the database driver without its tables', () => {
  it('says how to create them when a job is dispatched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-queue-'))
    dirs.push(dir)
    const db = await openDatabase({ storageDir: dir, projectDir: dir })
    try {
      const mail = defineJob<{ to: string }>('mail', { handle: () => {} })
      await expect(createQueue(databaseQueueDriver(db)).dispatch(mail, { to: 'a@example.test' })).rejects.toThrow('dispatch(mail): the queue tables do not exist (svc migrate creates them when database/migrations has the jobs migration (create_jobs_table); without one, svc make:queue-table writes it first')
    } finally {
      db.close()
    }
  })
})
