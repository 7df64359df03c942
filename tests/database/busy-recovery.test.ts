/**
 * One SQLITE_BUSY must not break a database for good. With @libsql/client on
 * a local file, a statement that fails with SQLITE_BUSY is never finalised:
 * that connection's next transaction cannot commit, and the BEGIN it leaves
 * open holds SQLite's write lock until the process exits, so every other
 * connection (every other process on the file) is locked out too
 * (tursodatabase/libsql-client-ts#352). Two connections in one process stand
 * for two processes here: each has its own native connection and lock.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ServiceBusyError, type Database } from 'svc'
import { openDatabase } from 'svc/node'
import { tempDir } from '../helpers/app.ts'

const opened: Array<() => void> = []
afterEach(() => opened.splice(0).forEach((close) => close()))

async function twoConnections(): Promise<{ first: Database; second: Database; observer: Database }> {
  const dir = tempDir('svc-busy-')
  const open = () => openDatabase({ storageDir: dir.path, projectDir: dir.path, busyTimeoutMs: 100 })
  const [first, second, observer] = [await open(), await open(), await open()]
  opened.push(() => {
    for (const db of [first, second, observer]) db.close()
    dir.remove()
  })
  await first.execute('create table entries (id integer primary key, v text not null)')
  return { first, second, observer }
}

/** Runs `during` while `holder` keeps SQLite's write lock in an open transaction. */
async function whileLocked(holder: Database, during: () => Promise<void>): Promise<void> {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  const held = holder.transaction(async (tx) => {
    await tx.execute("insert into entries (v) values ('held')")
    locked()
    await released
  })
  await lockTaken
  try {
    await during()
  } finally {
    release()
    await held
  }
}

const values = async (db: Database) => (await db.all<{ v: string }>('select v from entries order by id')).map((row) => row.v)

describe('after SQLITE_BUSY', () => {
  it('a write that met the lock is a 503 (ServiceBusyError), and the same connection then commits again', async () => {
    const { first, second, observer } = await twoConnections()
    await whileLocked(first, async () => {
      await expect(second.execute("insert into entries (v) values ('refused')")).rejects.toBeInstanceOf(ServiceBusyError)
    })
    await second.transaction(async (tx) => {
      await tx.execute("insert into entries (v) values ('in a transaction')")
    })
    await second.execute("insert into entries (v) values ('alone')")
    expect(await values(observer)).toEqual(['held', 'in a transaction', 'alone'])
  })

  it('the other connection is not locked out afterwards', async () => {
    const { first, second, observer } = await twoConnections()
    await whileLocked(first, async () => {
      await expect(second.transaction(async (tx) => tx.execute("insert into entries (v) values ('refused')"))).rejects.toBeInstanceOf(ServiceBusyError)
    })
    await second.execute("insert into entries (v) values ('second')")
    await first.execute("insert into entries (v) values ('first again')")
    expect(await values(observer)).toEqual(['held', 'second', 'first again'])
  })
})
