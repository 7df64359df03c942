/**
 * The database module every query goes through: transactions commit or roll
 * back as a whole; `withObserver` reports every statement with its SQL,
 * arguments, duration and row count.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Database, QueryRecord } from 'svc'
import { openDatabase } from 'svc/node'
import { tempDir } from '../helpers/app.ts'
import { openTestDatabase, type TestDatabase } from './helpers.ts'

let t: TestDatabase
let db: Database
beforeEach(async () => {
  t = await openTestDatabase()
  db = t.db
  await db.execute('create table notes (id integer primary key, body text not null unique)')
})
afterEach(() => t.close())

const count = async () => Number((await db.execute('select count(*) as n from notes')).rows[0]!.n)

describe('transaction', () => {
  it('commits when the work resolves, and returns its value', async () => {
    const id = await db.transaction(async (tx) => {
      await tx.execute("insert into notes (body) values ('a')")
      const result = await tx.execute("insert into notes (body) values ('b') returning id")
      return result.rows[0]!.id
    })
    expect(id).toBe(2)
    expect(await count()).toBe(2)
  })

  it('rolls back everything when the work throws, and rethrows', async () => {
    await db.execute("insert into notes (body) values ('before')")
    const failure = new Error('changed my mind')
    await expect(
      db.transaction(async (tx) => {
        await tx.execute("insert into notes (body) values ('a')")
        await tx.execute("update notes set body = 'overwritten' where body = 'before'")
        throw failure
      }),
    ).rejects.toBe(failure)
    expect((await db.execute('select body from notes')).rows.map((row) => row.body)).toEqual(['before'])
  })

  it('rolls back when a statement fails', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.execute("insert into notes (body) values ('a')")
        await tx.execute("insert into notes (body) values ('a')") // unique violation
      }),
    ).rejects.toThrow(/UNIQUE constraint failed/)
    expect(await count()).toBe(0)
  })

  it('a nested transaction is part of the outer one', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.transaction(async (inner) => inner.execute("insert into notes (body) values ('inner')"))
        throw new Error('outer fails')
      }),
    ).rejects.toThrow('outer fails')
    expect(await count()).toBe(0)
  })

  it('batch is atomic', async () => {
    await expect(
      db.batch([
        { sql: 'insert into notes (body) values (?)', args: ['x'] },
        { sql: 'insert into notes (body) values (?)', args: ['x'] },
      ]),
    ).rejects.toThrow(/UNIQUE/)
    expect(await count()).toBe(0)
    const results = await db.batch(["insert into notes (body) values ('y')", 'select * from notes'])
    expect(results[1]!.rows).toHaveLength(1)
  })
})

describe('several writers in one process', () => {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5))

  // The native driver waits for SQLite's lock synchronously: without taking
  // turns, the second transaction froze the process for the whole busy timeout
  // (5 s) and then failed with SQLITE_BUSY.
  it('concurrent transactions take turns, and all commit', async () => {
    const results = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((name) =>
        db.transaction(async (tx) => {
          await tx.execute('insert into notes (body) values (?)', [`${name}1`])
          await pause()
          await tx.execute('insert into notes (body) values (?)', [`${name}2`])
        }),
      ),
    )
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'])
    expect(await count()).toBe(8)
  })

  it('a write outside waits for the open transaction; a read does not', async () => {
    const order: string[] = []
    const transaction = db.transaction(async (tx) => {
      await tx.execute("insert into notes (body) values ('in tx')")
      await pause()
      order.push('tx done')
    })
    const read = db.execute('select count(*) as n from notes').then((result) => order.push(`read saw ${result.rows[0]!.n}`))
    const write = db.execute("insert into notes (body) values ('outside')").then(() => order.push('write'))
    await Promise.all([transaction, read, write])
    expect(order).toEqual(['read saw 0', 'tx done', 'write'])
    expect(await count()).toBe(2)
  })

  it('writing through the outer handle inside a transaction fails with a clear error, not a hang', async () => {
    const dir = tempDir('svc-db-')
    const quick = await openDatabase({ storageDir: dir.path, projectDir: dir.path, busyTimeoutMs: 200 })
    try {
      await quick.execute('create table notes (body text)')
      await expect(
        quick.transaction(async (tx) => {
          await tx.execute("insert into notes (body) values ('through tx')")
          await quick.execute("insert into notes (body) values ('through the outer db')")
        }),
      ).rejects.toThrow(/Waited 200 ms for an open transaction to finish \(inside db.transaction\(\), run every statement on the tx handle/)
      expect((await quick.execute('select count(*) as n from notes')).rows[0]!.n).toBe(0)
      // Reading through the outer handle inside a transaction still works (WAL readers never wait).
      expect(await quick.transaction(async () => (await quick.execute('select count(*) as n from notes')).rows[0]!.n)).toBe(0)
    } finally {
      quick.close()
      dir.remove()
    }
  })
})

describe('withObserver', () => {
  it('reports sql, args, duration and rows of every statement', async () => {
    const seen: QueryRecord[] = []
    const observed = db.withObserver((query) => seen.push(query))
    await observed.execute('insert into notes (body) values (?), (?)', ['a', 'b'])
    await observed.execute({ sql: 'select * from notes where body != ?', args: ['zzz'] })
    await observed.execute('select 1')
    expect(seen).toHaveLength(3)
    expect(seen[0]).toMatchObject({ sql: 'insert into notes (body) values (?), (?)', args: ['a', 'b'], rows: 0 })
    expect(seen[1]).toMatchObject({ sql: 'select * from notes where body != ?', args: ['zzz'], rows: 2 })
    expect(seen[2]).toMatchObject({ sql: 'select 1', args: undefined, rows: 1 })
    for (const query of seen) {
      expect(typeof query.duration_ms).toBe('number')
      expect(query.duration_ms).toBeGreaterThanOrEqual(0)
      expect(query.error).toBeUndefined()
    }
  })

  it('reports a failing statement with its error', async () => {
    const seen: QueryRecord[] = []
    await expect(db.withObserver((query) => seen.push(query)).execute('select * from missing')).rejects.toThrow()
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ sql: 'select * from missing', rows: 0 })
    expect(seen[0]!.error).toMatch(/no such table: missing/)
  })

  it('reports inside transactions and batches, and leaves the original handle unobserved', async () => {
    const seen: string[] = []
    const observed = db.withObserver((query) => seen.push(query.sql))
    await observed.transaction(async (tx) => {
      await tx.execute("insert into notes (body) values ('t')")
    })
    await observed.batch(["insert into notes (body) values ('b1')", "insert into notes (body) values ('b2')"])
    await db.execute('select * from notes')
    expect(seen).toEqual([
      "insert into notes (body) values ('t')",
      "insert into notes (body) values ('b1')",
      "insert into notes (body) values ('b2')",
    ])
  })
})
