/**
 * The migrator on a real libSQL file: batches, rollback (last batch by
 * default, or N batches), status, fresh, and a failing migration that stops
 * the run with its name and the SQL error, leaving earlier ones applied and
 * none of its own work.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, migrateFresh, MigrationError, migrationStatus, rollback, type Database, type Migration } from 'svc'
import { openTestDatabase, tableNames, type TestDatabase } from './helpers.ts'

function createTable(name: string, table: string): Migration {
  return {
    name,
    up: async (db) => {
      await db.execute(`create table ${table} (id integer primary key, name text)`)
    },
    down: async (db) => {
      await db.execute(`drop table ${table}`)
    },
  }
}

const users = createTable('20260101000000_create_users', 'users')
const posts = createTable('20260102000000_create_posts', 'posts')
const tags = createTable('20260103000000_create_tags', 'tags')
const comments = createTable('20260104000000_create_comments', 'comments')

let t: TestDatabase
let db: Database
beforeEach(async () => {
  t = await openTestDatabase()
  db = t.db
})
afterEach(() => t.close())

const batches = async () => Object.fromEntries((await migrationStatus(db, [])).map((row) => [row.name, row.batch]))

describe('migrate', () => {
  it('applies pending migrations in name order, as one batch', async () => {
    expect(await migrate(db, [tags, users, posts])).toEqual([users.name, posts.name, tags.name])
    expect(await tableNames(db)).toEqual(['migrations', 'posts', 'tags', 'users'])
    expect(await batches()).toEqual({ [users.name]: 1, [posts.name]: 1, [tags.name]: 1 })
  })

  it('a second run with new files makes batch 2; nothing pending is a no-op', async () => {
    await migrate(db, [users, posts])
    expect(await migrate(db, [users, posts])).toEqual([])
    expect(await migrate(db, [users, posts, tags, comments])).toEqual([tags.name, comments.name])
    expect(await batches()).toEqual({ [users.name]: 1, [posts.name]: 1, [tags.name]: 2, [comments.name]: 2 })
  })

  it('a failing migration stops the run with its name and the SQL error; earlier ones stay, its own work is undone', async () => {
    const broken: Migration = {
      name: '20260102000000_broken',
      up: async (db) => {
        await db.execute('create table half_done (id integer primary key)')
        await db.execute("insert into half_done (id) values (1)")
        await db.execute('insert into no_such_table (id) values (1)')
      },
    }
    let thrown: unknown
    try {
      await migrate(db, [users, broken, tags])
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(MigrationError)
    expect((thrown as MigrationError).migration).toBe('20260102000000_broken')
    expect((thrown as Error).message).toMatch(/^Migration 20260102000000_broken failed: .*no such table: no_such_table/)

    expect(await tableNames(db)).toEqual(['migrations', 'users'])
    const status = await migrationStatus(db, [users, broken, tags])
    expect(status.map((row) => [row.name, row.batch])).toEqual([
      [users.name, 1],
      [broken.name, null],
      [tags.name, null],
    ])
  })

  it('after fixing the failing migration, the next run continues from it', async () => {
    const broken: Migration = { name: posts.name, up: async (db) => void (await db.execute('create tabel posts (id)')) }
    await expect(migrate(db, [users, broken])).rejects.toThrow(/Migration 20260102000000_create_posts failed: .*syntax error/)
    expect(await migrate(db, [users, posts])).toEqual([posts.name])
    expect(await batches()).toEqual({ [users.name]: 1, [posts.name]: 2 })
  })
})

describe('migrationStatus', () => {
  it('lists ran and pending migrations, and applied ones whose file is gone', async () => {
    await migrate(db, [users, posts])
    const status = await migrationStatus(db, [users, tags])
    expect(status.map(({ name, batch }) => ({ name, batch }))).toEqual([
      { name: users.name, batch: 1 },
      { name: posts.name, batch: 1 },
      { name: tags.name, batch: null },
    ])
    expect(status[0]!.ran_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(status[2]!.ran_at).toBeNull()
  })

  it('works on an empty database, and writes nothing there (no migrations table made)', async () => {
    expect(await migrationStatus(db, [users])).toEqual([{ name: users.name, batch: null, ran_at: null }])
    expect(await tableNames(db)).toEqual([])
  })

  it('only reads on a migrated database: no statement but select (a libsql:// replica refuses even a create table that would do nothing)', async () => {
    await migrate(db, [users])
    const sent: string[] = []
    const watched = db.withObserver((query) => sent.push(query.sql))
    expect((await migrationStatus(watched, [users, posts])).map(({ name, batch }) => ({ name, batch }))).toEqual([
      { name: users.name, batch: 1 },
      { name: posts.name, batch: null },
    ])
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.filter((sql) => !/^\s*select\b/i.test(sql))).toEqual([])
  })

  it('only reads on a database never migrated too', async () => {
    await db.execute('pragma query_only = 1')
    expect(await migrationStatus(db, [users])).toEqual([{ name: users.name, batch: null, ran_at: null }])
  })
})

describe('rollback on a database never migrated', () => {
  it('has nothing to roll back, and writes nothing (no migrations table made)', async () => {
    expect(await rollback(db, [users])).toEqual([])
    expect(await tableNames(db)).toEqual([])
  })
})

describe('rollback', () => {
  beforeEach(async () => {
    await migrate(db, [users, posts]) // batch 1
    await migrate(db, [users, posts, tags]) // batch 2
    await migrate(db, [users, posts, tags, comments]) // batch 3
  })
  const all = () => [users, posts, tags, comments]

  it('rolls back the last batch by default', async () => {
    expect(await rollback(db, all())).toEqual([comments.name])
    expect(await tableNames(db)).toEqual(['migrations', 'posts', 'tags', 'users'])
    expect(await batches()).toEqual({ [users.name]: 1, [posts.name]: 1, [tags.name]: 2 })
  })

  it('--step=N rolls back N batches, newest first', async () => {
    expect(await rollback(db, all(), 2)).toEqual([comments.name, tags.name])
    expect(await batches()).toEqual({ [users.name]: 1, [posts.name]: 1 })
    expect(await rollback(db, all(), 5)).toEqual([posts.name, users.name])
    expect(await tableNames(db)).toEqual(['migrations'])
    expect(await rollback(db, all())).toEqual([])
  })

  it('a rolled-back batch can be migrated again', async () => {
    await rollback(db, all())
    expect(await migrate(db, all())).toEqual([comments.name])
    expect((await batches())[comments.name]).toBe(3)
  })

  it('refuses to roll back a migration without down(), or whose file is missing', async () => {
    const noDown: Migration = { name: comments.name, up: comments.up }
    await expect(rollback(db, [users, posts, tags, noDown])).rejects.toThrow(/Migration 20260104000000_create_comments cannot be rolled back: it has no down\(\)/)
    await expect(rollback(db, [users, posts, tags])).rejects.toMatchObject({
      message: 'Migration 20260104000000_create_comments cannot be rolled back: its file is missing',
      migration: comments.name,
      reason: 'missing_file',
    })
    expect(await tableNames(db)).toContain('comments')
  })

  it('checks the whole batch first: a missing file in it rolls back nothing, not the newer ones before it', async () => {
    await rollback(db, all(), 2) // back to batch 1: users, posts
    await migrate(db, all()) // batch 2: tags, comments
    await expect(rollback(db, [users, posts, comments])).rejects.toMatchObject({ migration: tags.name, reason: 'missing_file' })
    expect(await tableNames(db)).toEqual(['comments', 'migrations', 'posts', 'tags', 'users'])
    expect(await batches()).toEqual({ [users.name]: 1, [posts.name]: 1, [tags.name]: 2, [comments.name]: 2 })
  })
})

describe('migrateFresh', () => {
  it('drops every table (also ones no migration made) and migrates from scratch as batch 1', async () => {
    await migrate(db, [users])
    await migrate(db, [users, posts])
    await db.execute('create table stray (id integer)')
    await db.execute("insert into users (name) values ('kept?')")
    expect(await migrateFresh(db, [users, posts, tags])).toEqual([users.name, posts.name, tags.name])
    expect(await tableNames(db)).toEqual(['migrations', 'posts', 'tags', 'users'])
    expect(await batches()).toEqual({ [users.name]: 1, [posts.name]: 1, [tags.name]: 1 })
    expect((await db.execute('select count(*) as n from users')).rows[0]!.n).toBe(0)
  })

  it('drops tables linked by foreign keys', async () => {
    await db.execute('create table parents (id integer primary key)')
    await db.execute('create table children (id integer primary key, parent_id integer not null references parents(id))')
    await db.execute('insert into parents (id) values (1)')
    await db.execute('insert into children (parent_id) values (1)')
    await migrateFresh(db, [users])
    expect(await tableNames(db)).toEqual(['migrations', 'users'])
  })

  it('drops the views too, so that a migration creating one runs again', async () => {
    // Only tables were dropped: the view stayed, and its migration then failed with "view ... already exists".
    const withView: Migration = {
      name: '20260105000000_create_user_names_view',
      up: async (db) => void (await db.execute('create view user_names as select name from users')),
    }
    await migrate(db, [users, withView])
    expect(await migrateFresh(db, [users, withView])).toEqual([users.name, withView.name])
    expect(await db.all("select name from sqlite_master where type = 'view'")).toEqual([{ name: 'user_names' }])
  })
})
