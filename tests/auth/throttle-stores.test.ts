/**
 * One conformance suite for every throttle store (in-memory and
 * database-backed): fixed windows, independent keys, reset, and atomic
 * counting under concurrency (for the database store, also across two
 * connections, as two processes would be).
 */
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { databaseThrottleStore, memoryThrottleStore, type ThrottleStore } from 'svc'
import { openDatabase } from 'svc/node'
import { openTestDatabase } from './helpers.ts'

const cleanups: Array<() => void> = []
afterAll(() => cleanups.forEach((cleanup) => cleanup()))

const stores: Array<[string, () => Promise<ThrottleStore>]> = [
  ['memory', async () => memoryThrottleStore()],
  [
    'database',
    async () => {
      const { db, dir } = await openTestDatabase()
      cleanups.push(() => {
        db.close()
        rmSync(dir, { recursive: true, force: true })
      })
      return databaseThrottleStore(db)
    },
  ],
]

const T0 = 1_767_268_800_000
const MINUTE = 60_000

describe.each(stores)('%s throttle store', (_name, create) => {
  it('counts hits in a window that ends windowMs after the first', async () => {
    const store = await create()
    expect(await store.hit('k', MINUTE, T0)).toEqual({ count: 1, resetAt: T0 + MINUTE })
    expect(await store.hit('k', MINUTE, T0 + 10_000)).toEqual({ count: 2, resetAt: T0 + MINUTE })
    expect(await store.hit('k', MINUTE, T0 + MINUTE - 1)).toEqual({ count: 3, resetAt: T0 + MINUTE })
  })

  it('starts a new window once the old one has ended', async () => {
    const store = await create()
    await store.hit('k', MINUTE, T0)
    await store.hit('k', MINUTE, T0)
    expect(await store.hit('k', MINUTE, T0 + MINUTE)).toEqual({ count: 1, resetAt: T0 + 2 * MINUTE })
    expect(await store.hit('k', MINUTE, T0 + MINUTE + 5)).toEqual({ count: 2, resetAt: T0 + 2 * MINUTE })
  })

  it('keeps keys apart', async () => {
    const store = await create()
    await store.hit('a', MINUTE, T0)
    await store.hit('a', MINUTE, T0)
    expect((await store.hit('b', MINUTE, T0)).count).toBe(1)
    expect((await store.hit('a', MINUTE, T0)).count).toBe(3)
  })

  it('peeks without counting, and forgets a key on reset', async () => {
    const store = await create()
    expect(await store.peek('k', T0)).toBeUndefined()
    await store.hit('k', MINUTE, T0)
    expect(await store.peek('k', T0 + 1)).toEqual({ count: 1, resetAt: T0 + MINUTE })
    expect(await store.peek('k', T0 + MINUTE)).toBeUndefined()
    await store.reset('k')
    expect(await store.peek('k', T0 + 1)).toBeUndefined()
    expect((await store.hit('k', MINUTE, T0 + 2)).count).toBe(1)
  })

  it('counts concurrent hits exactly once each', async () => {
    const store = await create()
    const hits = await Promise.all(Array.from({ length: 40 }, () => store.hit('burst', MINUTE, T0)))
    expect(hits.map((hit) => hit.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
  })
})

describe('database throttle store across connections', () => {
  it('two connections on one file (two processes) share the counters atomically', async () => {
    const { db, dir, url } = await openTestDatabase()
    const second = await openDatabase({ url, storageDir: dir, projectDir: dir })
    try {
      const a = databaseThrottleStore(db)
      const b = databaseThrottleStore(second)
      const hits = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).hit('shared', MINUTE, T0)))
      expect(hits.map((hit) => hit.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
      expect((await b.peek('shared', T0))?.count).toBe(30)
    } finally {
      second.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('THROTTLE_STORE=database in apps', () => {
  it('two app instances on one database share one login budget', async () => {
    const { createAuthTestApp } = await import('./helpers.ts')
    const { db, dir, url } = await openTestDatabase()
    const other = await openDatabase({ url, storageDir: dir, projectDir: dir })
    const env = { THROTTLE_STORE: 'database', AUTH_LOGIN_THROTTLE: '3,1' }
    const one = await createAuthTestApp({ env, database: { db, dir } })
    const two = await createAuthTestApp({ env, database: { db: other, dir } })
    try {
      const login = (app: typeof one) => app.client.post('/api/auth/login', { json: { email: 'n@example.com', password: 'whatever1' } })
      expect((await login(one)).status).toBe(401)
      expect((await login(two)).status).toBe(401)
      expect((await login(one)).status).toBe(401)
      expect((await login(two)).status).toBe(429)
      expect((await db.execute('select count(*) as n from rate_limits')).rows[0]!.n).toBeGreaterThan(0)
    } finally {
      other.close()
      await one.close()
    }
  })
})
