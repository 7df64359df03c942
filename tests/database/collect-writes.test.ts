/** collectWrites (migrations on drivers without interactive transactions): reads answer at once, writes wait for the batch. */
import { describe, expect, it } from 'vitest'
import { createClient } from '@libsql/client'
import { collectWrites } from '../../framework/database/collect-writes.ts'
import { createDatabase } from '../../framework/database/database.ts'

describe('collectWrites', () => {
  it('answers selects, query plans and reading pragmas now; keeps writes and setting pragmas for the batch', async () => {
    const target = createDatabase(createClient({ url: ':memory:' }))
    try {
      await target.execute('create table posts (id integer primary key, title text)')
      const { db, statements } = collectWrites(target)
      expect((await db.all<{ name: string }>('pragma table_info(posts)')).map((column) => column.name)).toEqual(['id', 'title'])
      expect((await db.all('select count(*) as n from posts'))[0]).toEqual({ n: 0 })
      expect((await db.all('explain query plan select * from posts')).length).toBeGreaterThan(0)
      expect(await db.all("insert into posts (title) values ('a') returning id")).toEqual([])
      await db.execute('pragma user_version = 3')
      expect(statements.map((statement) => statement.sql)).toEqual(["insert into posts (title) values ('a') returning id", 'pragma user_version = 3'])
    } finally {
      target.close()
    }
  })
})
