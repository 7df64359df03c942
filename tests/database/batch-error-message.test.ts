/**
 * A batch that fails says its SQLite code once, as a single statement does:
 * libSQL's batch error repeated it (`SQLITE_CONSTRAINT: SQLITE_CONSTRAINT: ...`),
 * and seeders (which run in a transaction and mostly batch) showed it so.
 */
import { createClient } from '@libsql/client'
import { describe, expect, it } from 'vitest'
import { createDatabase, type Database } from 'svc'

async function withTable(run: (db: Database) => Promise<void>): Promise<void> {
  const db = createDatabase(createClient({ url: ':memory:' }))
  try {
    await db.execute('create table posts (slug text not null unique)')
    await db.execute("insert into posts (slug) values ('hello')")
    await run(db)
  } finally {
    db.close()
  }
}

const duplicate = [{ sql: 'insert into posts (slug) values (?)', args: ['hello'] }]
const expected = 'SQLITE_CONSTRAINT: UNIQUE constraint failed: posts.slug'

describe('a failed batch names its SQLite code once', () => {
  it('as a statement of its own does', async () => {
    await withTable(async (db) => {
      await expect(db.execute(duplicate[0]!)).rejects.toThrow(new RegExp(`^${expected}$`))
    })
  })

  it('outside a transaction', async () => {
    await withTable(async (db) => {
      const error = await db.batch(duplicate).catch((caught: unknown) => caught)
      expect((error as Error).message).toBe(expected)
      expect((error as { code?: string }).code).toBe('SQLITE_CONSTRAINT')
    })
  })

  it('inside a transaction (as a seeder runs)', async () => {
    await withTable(async (db) => {
      const error = await db.transaction((tx) => tx.batch(duplicate)).catch((caught: unknown) => caught)
      expect((error as Error).message).toBe(expected)
    })
  })
})
