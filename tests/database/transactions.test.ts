/**
 * The database module every query goes through: transactions commit or roll
 * back as a whole; `withObserver` reports every statement with its SQL,
 * arguments, duration and row count.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HttpError, type Database, type QueryRecord } from 'svc'
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

const pause = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('several writers in one process', () => {

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
      const failure = await quick
        .transaction(async (tx) => {
          await tx.execute("insert into notes (body) values ('through tx')")
          await quick.execute("insert into notes (body) values ('through the outer db')")
        })
        .then(
          () => undefined,
          (error: unknown) => error as HttpError,
        )
      // A 503 to the client (the wait is load as far as it can tell); the cause names the mistake.
      expect(failure).toBeInstanceOf(HttpError)
      expect(failure!.status).toBe(503)
      expect(failure!.headers).toEqual({ 'Retry-After': '1' })
      expect((failure!.cause as Error).message).toMatch(
        /Waited 200 ms for an open transaction to finish \(inside db.transaction\(\), run every statement on the tx handle/,
      )
      expect((await quick.execute('select count(*) as n from notes')).rows[0]!.n).toBe(0)
      // Reading through the outer handle inside a transaction still works (WAL readers never wait).
      expect(await quick.transaction(async () => (await quick.execute('select count(*) as n from notes')).rows[0]!.n)).toBe(0)
    } finally {
      quick.close()
      dir.remove()
    }
  })
})

describe('when the database stays busy', () => {
  // Before: a write outside a transaction waited for the queue to be empty, which a steady
  // stream of transactions never let happen: it timed out (the lost verification mails).
  it('a write outside a transaction takes its turn in a steady stream of transactions', async () => {
    const dir = tempDir('svc-db-')
    const quick = await openDatabase({ storageDir: dir.path, projectDir: dir.path, busyTimeoutMs: 300 })
    try {
      await quick.execute('create table notes (body text)')
      let stop = false
      // Three writers each queue their next transaction as soon as the last one commits: the queue is never empty.
      const stream = Promise.all(
        [1, 2, 3].map(async () => {
          while (!stop) {
            await quick.transaction(async (tx) => {
              await tx.execute("insert into notes (body) values ('tx')")
              await pause() // work that really waits (signing a token, say) while the transaction is open
            })
          }
        }),
      )
      await new Promise((resolve) => setTimeout(resolve, 20))
      await quick.execute("insert into notes (body) values ('outside')")
      await quick.batch(["insert into notes (body) values ('batch')"])
      stop = true
      await stream
      expect((await quick.execute("select count(*) as n from notes where body != 'tx'")).rows[0]!.n).toBe(2)
    } finally {
      quick.close()
      dir.remove()
    }
  })

  it("another connection's lock held past the busy timeout is a 503 with Retry-After, not SQLITE_BUSY", async () => {
    const dir = tempDir('svc-db-')
    const holder = await openDatabase({ storageDir: dir.path, projectDir: dir.path })
    const other = await openDatabase({ storageDir: dir.path, projectDir: dir.path, busyTimeoutMs: 50 })
    try {
      await holder.execute('create table notes (body text)')
      let release!: () => void
      let locked!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const isLocked = new Promise<void>((resolve) => (locked = resolve))
      const held = holder.transaction(async (tx) => {
        await tx.execute("insert into notes (body) values ('held')")
        locked()
        await released
      })
      await isLocked
      for (const attempt of [
        () => other.execute("insert into notes (body) values ('other')"),
        () => other.batch(["insert into notes (body) values ('other')"]),
        () => other.transaction((tx) => tx.execute("insert into notes (body) values ('other')")),
      ]) {
        const failure = await attempt().then(
          () => undefined,
          (error: unknown) => error as HttpError,
        )
        expect(failure).toBeInstanceOf(HttpError)
        expect(failure!.status).toBe(503)
        expect(failure!.headers?.['Retry-After']).toBe('1')
        expect((failure!.cause as Error).message).toMatch(/SQLITE_BUSY/)
      }
      release()
      await held
      expect((await other.execute('select count(*) as n from notes')).rows[0]!.n).toBe(1)
    } finally {
      holder.close()
      other.close()
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
