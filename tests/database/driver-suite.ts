/**
 * The `Database` interface's shared suite: the same cases run against every
 * driver (drivers.test.ts: libSQL file and memory in-process; D1 in workerd
 * through Miniflare, bundled by scripts/bundle-worker.mjs and run by
 * d1-runner.mjs under Node 22). Plain code (no test framework): a case throws
 * when it fails.
 */
import { migrate, NoTransactionsError, readThenWrite, type Database } from 'svc'

export interface SuiteResult {
  name: string
  error?: string
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(message)
}
function same(actual: unknown, expected: unknown, what: string): void {
  check(JSON.stringify(actual) === JSON.stringify(expected), `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
}
async function rejects(work: () => Promise<unknown>, what: string): Promise<unknown> {
  try {
    await work()
  } catch (error) {
    return error
  }
  throw new Error(`${what}: expected an error`)
}

const count = async (db: Database, table = 'notes') => Number((await db.execute(`select count(*) as n from ${table}`)).rows[0]!.n)

const CASES: Record<string, (db: Database) => Promise<void>> = {
  'execute: rows by name and by index, integers as numbers, null and booleans bound': async (db) => {
    const inserted = await db.execute('insert into notes (body, rank, flag) values (?, ?, ?)', ['a', 7, true])
    same(inserted.rowsAffected, 1, 'rowsAffected')
    same(Number(inserted.lastInsertRowid), 1, 'lastInsertRowid')
    await db.execute('insert into notes (body, rank, flag) values (?, ?, ?)', ['b', null, false])
    const rows = (await db.execute('select id, body, rank, flag from notes order by id')).rows
    same(rows.length, 2, 'rows')
    same([rows[0]!.id, rows[0]!.body, rows[0]!.rank, rows[0]!.flag], [1, 'a', 7, 1], 'row by name')
    same([rows[1]![0], rows[1]![1], rows[1]![2]], [2, 'b', null], 'row by index')
    check(typeof rows[0]!.id === 'number', 'integers are numbers')
  },
  'first: the row, or undefined': async (db) => {
    await db.execute("insert into notes (body) values ('x')")
    same((await db.first<{ body: string }>('select body from notes where body = ?', ['x']))?.body, 'x', 'first')
    same(await db.first('select body from notes where body = ?', ['nothing']), undefined, 'no row')
  },
  'batch: results in order, a later statement sees an earlier one': async (db) => {
    const results = await db.batch([
      { sql: 'insert into notes (body) values (?)', args: ['one'] },
      { sql: 'insert into notes (body) select body || ?  from notes where body = ?', args: ['-copy', 'one'] },
      'select body from notes order by id',
    ])
    same(results.length, 3, 'results')
    same(results[2]!.rows.map((row) => row.body), ['one', 'one-copy'], 'rows of the last statement')
  },
  'batch: all or nothing (a failing statement leaves none of the others)': async (db) => {
    await db.execute("insert into notes (body) values ('taken')")
    const error = await rejects(
      () => db.batch([{ sql: 'insert into notes (body) values (?)', args: ['new'] }, { sql: 'insert into notes (body) values (?)', args: ['taken'] }]),
      'unique violation',
    )
    check(/unique/i.test(String((error as Error).message) + String((error as { cause?: Error }).cause?.message ?? '')), `a unique violation: ${String(error)}`)
    same(await count(db), 1, 'rows after the failed batch')
  },
  'transaction: where the driver has them, commit and rollback; elsewhere NoTransactionsError': async (db) => {
    if (!db.interactiveTransactions) {
      const error = await rejects(() => db.transaction(async () => undefined), 'transaction on a driver without')
      check(error instanceof NoTransactionsError, `NoTransactionsError, got ${String(error)}`)
      return
    }
    await db.transaction(async (tx) => void (await tx.execute("insert into notes (body) values ('kept')")))
    await rejects(
      () =>
        db.transaction(async (tx) => {
          await tx.execute("insert into notes (body) values ('gone')")
          throw new Error('changed my mind')
        }),
      'rolled back',
    )
    same((await db.execute('select body from notes')).rows.map((row) => row.body), ['kept'], 'rows')
  },
  'readThenWrite: reads, then a batch from what they found; tried again on a conflict': async (db) => {
    let tries = 0
    const id = await readThenWrite(
      db,
      async (handle) => {
        tries++
        const next = Number((await handle.execute('select coalesce(max(id), 0) + 1 as next from notes')).rows[0]!.next)
        // The first try meets a row another writer inserted under the same id.
        if (tries === 1 && !db.interactiveTransactions) await db.execute('insert into notes (id, body) values (?, ?)', [next, 'other'])
        await handle.batch([{ sql: 'insert into notes (id, body) values (?, ?)', args: [next, 'mine'] }])
        return next
      },
      (error) => /unique|constraint/i.test(String(error) + String((error as { cause?: unknown }).cause ?? '')),
    )
    same((await db.first<{ body: string }>('select body from notes where id = ?', [id]))?.body, 'mine', 'the row written')
  },
  'migrate: each migration atomically with its row; run again, nothing pending': async (db) => {
    const migrations = [
      {
        name: '20260101000000_create_tags',
        up: async (m: Database) => {
          await m.execute('create table tags (id integer primary key, name text not null unique)')
          await m.execute("insert into tags (name) values ('news')")
        },
      },
      { name: '20260101000100_broken', up: async (m: Database) => void (await m.execute('insert into no_such_table values (1)')) },
    ]
    await rejects(() => migrate(db, migrations), 'the broken migration')
    same(await count(db, 'tags'), 1, 'the first migration stayed')
    const ran = await migrate(db, migrations.slice(0, 1))
    same(ran, [], 'nothing pending')
  },
}

/** Runs every case on a fresh `notes` table (`fresh` drops what a case left). */
export async function runDriverSuite(db: Database): Promise<SuiteResult[]> {
  const results: SuiteResult[] = []
  for (const [name, run] of Object.entries(CASES)) {
    await db.batch(['drop table if exists notes', 'drop table if exists tags', 'drop table if exists migrations'])
    await db.execute('create table notes (id integer primary key, body text not null unique, rank integer, flag integer)')
    try {
      await run(db)
      results.push({ name })
    } catch (error) {
      results.push({ name, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })
    }
  }
  return results
}
