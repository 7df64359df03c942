/**
 * `svc db:show [table] [--schema]`, `svc db:seed [--class=Name]`,
 * `svc migrate:fresh --seed` and `svc user:role <email> [role]`, in-process
 * on a copy of examples/blog: what they print, their `--json` documents, and
 * what they leave in the database.
 */
import { existsSync, rmSync } from 'node:fs'
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DbSeedJson, DbTableJson, DbTablesJson, MigrateFreshJson, UserRoleJson } from '../../cli/contract/index.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { signAccessToken } from '../../cli/trace/sign-as.ts'
import { createTestClient } from 'svc/testing'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
const database = () => app.path('storage', 'database.sqlite')
beforeAll(() => {
  app = copyExampleApp()
  app.write('.env', 'APP_ENV=test\nJWT_SECRET=a-test-secret-that-is-at-least-32-characters\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n')
})
afterAll(() => app.remove())

const svc = (...args: string[]) => runSvc(args, { cwd: app.dir })
const json = <T>(...args: string[]) => svcJson<T>(args, { cwd: app.dir })

async function sql(statement: string): Promise<Array<Record<string, unknown>>> {
  const client = createClient({ url: `file:${database()}` })
  try {
    return (await client.execute(statement)).rows as unknown as Array<Record<string, unknown>>
  } finally {
    client.close()
  }
}
const count = async (table: string) => Number((await sql(`select count(*) as n from ${table}`))[0]!.n)

describe('before there is a database', () => {
  it('db:show, db:seed, user:role, migrate:rollback, queue:* (queue:work too) and rate:status say to migrate, and create no database file', async () => {
    // queue:status and rate:status made an empty file, then sent the user to svc make:queue-table / make:auth,
    // migrations the app already has.
    // migrate:rollback made an empty file and said "Nothing to roll back." (a mistyped DATABASE_URL looked fine).
    const readers = [['queue:status'], ['queue:flush'], ['queue:retry', 'all'], ['queue:work', '--stop-when-empty'], ['rate:status'], ['migrate:rollback']]
    for (const args of [['db:show'], ['db:show', 'users'], ['db:seed'], ['user:role', 'a@example.com', 'admin'], ...readers]) {
      const { exitCode, stderr } = await svc(...args)
      expect(exitCode, args.join(' ')).toBe(1)
      expect(stderr, args.join(' ')).toContain('error [E_NO_DATABASE]: No database yet at')
      expect(stderr).toContain('svc migrate creates it')
    }
    expect(existsSync(database())).toBe(false)
  })

  it('schedule:run and schedule:work say to migrate, and create no database file', async () => {
    // Both made an empty file (schedule:run then said "No task is due" and exited 0, every minute from cron).
    const stopped = AbortSignal.abort()
    for (const args of [['schedule:run'], ['schedule:run', '--task', 'svc:prune-traces'], ['schedule:work']]) {
      const { exitCode, stderr } = await runSvc(args, { cwd: app.dir, signal: stopped })
      expect(exitCode, args.join(' ')).toBe(1)
      expect(stderr, args.join(' ')).toContain('error [E_NO_DATABASE]: No database yet at')
    }
    expect(existsSync(database())).toBe(false)
  })
})

describe('svc db:show', () => {
  beforeAll(async () => {
    expect((await svc('migrate')).exitCode).toBe(0)
    // A composite foreign key, a partial and an expression index, a generated column, and a name that needs quoting.
    await sql(`create table "odd ""name"" table" (a integer, b text, primary key (a, b))`)
    await sql(`create table post_tags (post_id integer not null, tag text not null, label text generated always as (upper(tag)) virtual,
      foreign key (post_id) references posts (id) on delete cascade,
      foreign key (post_id, tag) references "odd ""name"" table" (a, b))`)
    await sql('create index post_tags_recent on post_tags (tag) where post_id > 10')
    await sql('create index post_tags_lower on post_tags (lower(tag))')
    await sql(`insert into "odd ""name"" table" values (1, 'x'), (2, 'y')`)
  })

  it('without a table: every table with its row count', async () => {
    const { tables } = await json<DbTablesJson>('db:show')
    expect(tables.map((table) => table.name)).toEqual([
      'failed_jobs', 'idempotency_keys', 'jobs',
      'migrations', 'odd "name" table', 'one_time_tokens', 'post_tags', 'posts', 'rate_limits', 'refresh_tokens', 'security_events', 'users',
    ])
    // The blog's 9 migrations (its queue and idempotency tables, and posts' authors, included).
    expect(tables.find((table) => table.name === 'migrations')!.rows).toBe(9)
    expect(tables.find((table) => table.name === 'odd "name" table')!.rows).toBe(2)
    const { stdout } = await svc('db:show')
    expect(stdout).toMatch(/^TABLE +ROWS\nfailed_jobs +0\nidempotency_keys +0\njobs +0\nmigrations +9\n/)
    expect(stdout).toContain('12 tables; svc db:show <table> for one')
  })

  it('a table: columns with type, nullability, default and key; indexes; row count', async () => {
    const users = await json<DbTableJson>('db:show', 'USERS')
    expect(users.table).toBe('users')
    expect(users.rows).toBe(0)
    const column = (name: string) => users.columns.find((c) => c.name === name)
    expect(column('id')).toEqual({ name: 'id', type: 'INTEGER', nullable: false, default: null, primary_key: true, generated: false })
    expect(column('role')).toEqual({ name: 'role', type: 'TEXT', nullable: false, default: "'user'", primary_key: false, generated: false })
    expect(column('locked_until')).toMatchObject({ nullable: true, default: null })
    expect(column('created_at')!.default).toContain('strftime')
    expect(users.indexes).toEqual([{ name: 'sqlite_autoindex_users_1', columns: ['email'], unique: true, origin: 'unique', partial: false }])
    expect(users.foreign_keys).toEqual([])
    expect(users.schema).toMatch(/^CREATE TABLE users \(/)
  })

  it('foreign keys (composite ones too, with their actions), partial, expression and primary-key indexes, generated columns', async () => {
    const tags = await json<DbTableJson>('db:show', 'post_tags')
    expect(tags.foreign_keys).toEqual(
      expect.arrayContaining([
        { columns: ['post_id'], table: 'posts', references: ['id'], on_update: 'NO ACTION', on_delete: 'CASCADE' },
        { columns: ['post_id', 'tag'], table: 'odd "name" table', references: ['a', 'b'], on_update: 'NO ACTION', on_delete: 'NO ACTION' },
      ]),
    )
    expect(tags.indexes).toEqual([
      { name: 'post_tags_lower', columns: ['(expression)'], unique: false, origin: 'index', partial: false },
      { name: 'post_tags_recent', columns: ['tag'], unique: false, origin: 'index', partial: true },
    ])
    expect(tags.columns.find((c) => c.name === 'label')).toMatchObject({ generated: true, nullable: true })
    const odd = await json<DbTableJson>('db:show', 'odd "name" table')
    expect(odd.rows).toBe(2)
    expect(odd.indexes).toEqual([{ name: expect.stringMatching(/^sqlite_autoindex_/), columns: ['a', 'b'], unique: true, origin: 'primary_key', partial: false }])
    // Not an INTEGER PRIMARY KEY alone: SQLite lets these columns be null.
    expect(odd.columns.map((c) => [c.name, c.primary_key, c.nullable])).toEqual([['a', true, true], ['b', true, true]])

    const { stdout } = await svc('db:show', 'post_tags')
    expect(stdout).toMatch(/^post_tags {2}0 rows\n/)
    expect(stdout).toContain('(post_id) -> posts(id)  on delete cascade')
    expect(stdout).toContain('post_tags_recent  index (tag) partial')
  })

  it('--schema prints the CREATE statements of the table, then its indexes', async () => {
    const { exitCode, stdout } = await svc('db:show', 'refresh_tokens', '--schema')
    expect(exitCode).toBe(0)
    const statements = stdout.trim().split(/;\n/).map((statement) => statement.split('(')[0]!.trim())
    expect(statements).toEqual(['CREATE TABLE refresh_tokens', 'CREATE INDEX refresh_tokens_family_id on refresh_tokens', 'CREATE INDEX refresh_tokens_user_id on refresh_tokens'])
    expect(stdout).toContain('references users (id) on delete cascade')
    expect((await json<DbTableJson>('db:show', 'refresh_tokens')).schema).toBe(stdout.trimEnd())
  })

  it('an unknown table is E_NO_TABLE with the closest names; --schema needs a table', async () => {
    const typo = await svc('db:show', 'userz')
    expect(typo).toMatchObject({ exitCode: 1, stdout: '' })
    expect(typo.stderr).toContain('error [E_NO_TABLE]: No table userz in the database')
    expect(typo.stderr).toContain('did you mean users?')
    const injection = await svc('db:show', 'users; drop table users')
    expect(injection.stderr).toContain('E_NO_TABLE')
    expect(await count('users')).toBe(0)
    expect((await svc('db:show', '--schema')).stderr).toContain('--schema shows one table')
  })
})

describe('svc db:seed', () => {
  it('runs every seeder in name order and says what each added, table by table; seeders print to stderr only', async () => {
    const result = await runSvc(['db:seed', '--json'], { cwd: app.dir })
    expect(result.exitCode).toBe(0)
    const seeded = JSON.parse(result.stdout) as DbSeedJson
    expect(seeded).toEqual({
      seeded: ['posts', 'users'],
      seeded_rows: [
        { seeder: 'posts', table: 'posts', added: 2 },
        { seeder: 'users', table: 'users', added: 2 },
      ],
    })
    // The users seeder prints the passwords it generated: progress, not the document.
    expect(result.stderr).toContain('Seeded admin admin@example.com with password')
    expect(await count('users')).toBe(2)
  })

  it('--class runs one seeder, found by its file name or a Laravel-style class name', async () => {
    for (const name of ['UserSeeder', 'user']) {
      expect(await json<DbSeedJson>('db:seed', `--class=${name}`), name).toEqual({ seeded: ['users'], seeded_rows: [] })
    }
    const { exitCode, stdout } = await svc('db:seed', '--class=users-seeder')
    expect(exitCode).toBe(0)
    expect(stdout).toBe('Seeded users (no rows changed)\n')
  })

  it('an unknown --class is E_NO_SEEDER listing the seeders', async () => {
    const missing = await svc('db:seed', '--class=Comments')
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toContain('error [E_NO_SEEDER]: No seeder Comments')
    expect(missing.stderr).toContain('seeders: posts, users')
    expect((await svc('db:seed', '--class=pots')).stderr).toContain('did you mean posts?')
    // An empty name is no name: it said "No seeder  in ..." (and queue:status --queue= "No jobs in .").
    for (const args of [['db:seed', '--class='], ['queue:status', '--queue='], ['queue:flush', '--queue=']]) {
      const empty = await svc(...args)
      expect(empty.exitCode, args.join(' ')).toBe(1)
      expect(empty.stderr, args.join(' ')).toMatch(/^error \[E_BAD_OPTION\]: --(class|queue) needs a value, got ""\n/)
    }
  })

  it("run again, the example's seeders add nothing and succeed: fixed sample rows are inserted once", async () => {
    // The posts seeder used to fail the second time on its own slugs (E_SEEDER, UNIQUE constraint failed: posts.slug).
    const before = { posts: await count('posts'), users: await count('users') }
    const again = await runSvc(['db:seed', '--json'], { cwd: app.dir })
    expect(again.stderr).toBe('')
    expect(again.exitCode).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({ seeded: ['posts', 'users'], seeded_rows: [] })
    expect(await svc('db:seed', '--class=posts')).toMatchObject({ exitCode: 0, stdout: 'Seeded posts (no rows changed)\n' })
    expect({ posts: await count('posts'), users: await count('users') }).toEqual(before)
  })

  it("a seeder whose model write meets a unique index says which field, not only that the data was invalid", async () => {
    app.write(
      'database/seeders/zz_model.ts',
      "import { defineModel, type Database } from 'svc'\n" +
        "const Post = defineModel<{ id: number; title: string; slug: string }, { title: string; slug: string }>({ name: 'Post', table: 'posts', fillable: ['title', 'slug'] })\n" +
        "export async function run(db: Database) {\n  await Post.create(db, { title: 'Again', slug: 'hello-svc' })\n}\n",
    )
    try {
      const { exitCode, stderr } = await svc('db:seed', '--class=zz_model')
      expect(exitCode).toBe(1)
      expect(stderr).toContain('error [E_SEEDER]: Seeder zz_model failed: The given data was invalid. The slug has already been taken.')
    } finally {
      rmSync(app.path('database', 'seeders', 'zz_model.ts'))
    }
  })

  it('a seeder that does not load is E_SEEDER with the fix: the package to install, or the file', async () => {
    // It was the loader's words alone, with no code and no fix: `error: Cannot find module 'svc'` before npm install.
    app.write('database/seeders/zz_package.ts', "import { pad } from 'no-such-pad-package'\nexport async function run() { pad() }\n")
    try {
      const { exitCode, stderr } = await svc('db:seed', '--class=zz_package')
      expect(exitCode).toBe(1)
      expect(stderr).toContain("error [E_SEEDER]: Seeder zz_package does not load: Cannot find module 'no-such-pad-package'\n")
      expect(stderr).toContain('  fix: the package no-such-pad-package is not installed: npm install no-such-pad-package (or fix the import if the name is wrong); it seeded nothing\n')
      const json = await runSvc(['db:seed', '--class=zz_package', '--json'], { cwd: app.dir })
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'E_SEEDER', exit_code: 1 })
    } finally {
      rmSync(app.path('database', 'seeders', 'zz_package.ts'))
    }
  })

  it('a failing seeder names itself and the seeders that ran before it, whose rows stay', async () => {
    expect((await svc('migrate:fresh')).exitCode).toBe(0)
    app.write('database/seeders/zz_broken.ts', "import type { Database } from 'svc'\nexport async function run(db: Database) {\n  await db.execute(\"insert into posts (title, slug) values ('half', 'half')\")\n  throw new Error('out of ideas')\n}\n")
    try {
      const { exitCode, stderr } = await svc('db:seed')
      expect(exitCode).toBe(1)
      expect(stderr).toContain('error [E_SEEDER]: Seeder zz_broken failed: out of ideas')
      expect(stderr).toContain('none of its rows were kept (the seeders before it ran: posts, users)')
      expect(await count('posts')).toBe(2)
      expect(await sql("select * from posts where slug = 'half'")).toEqual([])
    } finally {
      rmSync(app.path('database', 'seeders', 'zz_broken.ts'))
    }
  })
})

describe('svc migrate:fresh --seed', () => {
  it('says what it seeded, and --json has the same rows as db:seed', async () => {
    const { exitCode, stdout } = await svc('migrate:fresh', '--seed')
    expect(exitCode).toBe(0)
    expect(stdout).toContain('Seeded posts: +2 posts\nSeeded users: +2 users\n')
    const fresh = await json<MigrateFreshJson>('migrate:fresh', '--seed')
    expect(fresh.seeded).toEqual(['posts', 'users'])
    expect(fresh.seeded_rows).toEqual([
      { seeder: 'posts', table: 'posts', added: 2 },
      { seeder: 'users', table: 'users', added: 2 },
    ])
    expect(await json<MigrateFreshJson>('migrate:fresh')).toMatchObject({ seeded: [], seeded_rows: [] })
    expect(await count('users')).toBe(0)
  })
})

describe('svc user:role', () => {
  beforeAll(async () => {
    expect((await svc('db:seed', '--class=users')).exitCode).toBe(0)
    expect((await svc('db:seed', '--class=posts')).exitCode).toBe(0)
  })

  it("makes a user an admin by email (any case), at once: the user's current token may now delete", async () => {
    const project = findProject(app.dir)
    const loaded = await loadApp(project, { trace: false })
    try {
      const client = createTestClient(loaded.app)
      const token = await signAccessToken(project, loaded.config, loaded.database!, { email: 'user@example.com' })
      expect((await client.delete('/api/v1/posts/1', { token })).status).toBe(403)

      const changed = await json<UserRoleJson>('user:role', 'USER@example.com', 'admin')
      expect(changed).toEqual({ email: 'user@example.com', role: 'admin', previous_role: 'user', changed: true })
      expect(await sql("select role from users where email = 'user@example.com'")).toEqual([{ role: 'admin' }])
      expect((await client.delete('/api/v1/posts/1', { token })).status).toBe(200)
    } finally {
      await loaded.close()
    }
  })

  it('without a role shows it; the same role again changes nothing', async () => {
    expect(await svc('user:role', 'admin@example.com')).toEqual({ exitCode: 0, stdout: 'admin@example.com has the role admin.\n', stderr: '' })
    expect(await json<UserRoleJson>('user:role', 'admin@example.com', 'admin')).toEqual({ email: 'admin@example.com', role: 'admin', previous_role: 'admin', changed: false })
    const { stdout } = await svc('user:role', 'user@example.com', 'moderator')
    expect(stdout).toBe("user@example.com is now moderator (was admin). It applies to the user's next request; no new login needed.\n")
  })

  it('an unknown user or a malformed role is refused, and nothing changes', async () => {
    const unknown = await svc('user:role', 'nobody@example.com', 'admin')
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('error [E_USER_NOT_FOUND]: No user with the email nobody@example.com')
    for (const role of ['ad min', "admin'--", '']) {
      const bad = await svc('user:role', 'user@example.com', role)
      expect(bad.exitCode, role).toBe(1)
      expect(bad.stderr).toContain('E_BAD_ARGUMENTS')
    }
    expect(await sql("select role from users where email = 'user@example.com'")).toEqual([{ role: 'moderator' }])
  })
})

describe('a database another connection keeps locked', () => {
  it('a seeder and user:role say the database is locked and by what, not "the service is busy", and write nothing', async () => {
    expect((await svc('migrate:fresh')).exitCode).toBe(0)
    expect((await svc('db:seed', '--class=users')).exitCode).toBe(0)
    const holder = createClient({ url: `file:${database()}` })
    try {
      // Another writer (a server, a worker) in the middle of its transaction, past the 5-s busy timeout.
      const held = await holder.transaction('write')
      await held.execute("update users set role = role where email = 'user@example.com'")
      const seeded = await svc('db:seed', '--class=posts')
      expect(seeded.exitCode).toBe(1)
      expect(seeded.stderr).toContain(
        'error [E_SEEDER]: Seeder posts failed: the database is locked: another connection (svc serve, a queue worker, another command) held its write lock past the busy timeout',
      )
      expect(seeded.stderr).not.toContain('service is busy')
      const role = await svc('user:role', 'user@example.com', 'admin')
      expect(role.exitCode).toBe(1)
      expect(role.stderr).toBe(
        'error [E_DATABASE_LOCKED]: the database is locked: another connection (svc serve, a queue worker, another command) held its write lock past the busy timeout\n  fix: run it again once that write is done\n',
      )
      await held.rollback()
    } finally {
      holder.close()
    }
    expect(await sql("select role from users where email = 'user@example.com'")).toEqual([{ role: 'user' }])
    expect(await count('posts')).toBe(0)
  })
})
