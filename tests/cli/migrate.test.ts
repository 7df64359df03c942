/**
 * `svc migrate`, `migrate:status [--pending]`, `migrate:rollback [--step=N]`
 * and `migrate:fresh [--seed]`, spawned in a temp copy of examples/blog, with
 * their `--json` documents and what they leave in the database file.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, extname } from 'node:path'
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { expectContract, runSvc, startSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
let migrations: string[]
let seeders: string[]

const names = (dir: string) =>
  readdirSync(dir)
    // The migrations' index.ts is `svc migrate:bundle`'s module, not a migration.
    .filter((file) => /\.(ts|js|mjs)$/.test(file) && file !== 'index.ts')
    .sort()
    .map((file) => basename(file, extname(file)))

beforeAll(() => {
  app = copyExampleApp()
  migrations = names(app.path('database', 'migrations'))
  seeders = names(app.path('database', 'seeders'))
})
afterAll(() => app.remove())

const EXTRA = '20990101000000_create_comments_table'
const BROKEN = '20990102000000_add_broken_index'

beforeEach(() => {
  // Each test starts from no database and the example's own migrations.
  for (const file of readdirSync(app.path('storage'))) if (file.startsWith('database.sqlite')) rmSync(app.path('storage', file))
  for (const name of [EXTRA, BROKEN]) rmSync(app.path('database', 'migrations', `${name}.ts`), { force: true })
})

const svc = (...args: string[]) => runSvc(args, { cwd: app.dir })
const json = <T = any>(...args: string[]) => svcJson<T>(args, { cwd: app.dir })

interface StatusJson {
  migrations: Array<{ name: string; status: 'ran' | 'pending'; batch: number | null; ran_at: string | null; file_missing: boolean }>
}

async function query(sql: string): Promise<Array<Record<string, unknown>>> {
  const client = createClient({ url: `file:${app.path('storage', 'database.sqlite')}` })
  try {
    return (await client.execute(sql)).rows as unknown as Array<Record<string, unknown>>
  } finally {
    client.close()
  }
}

/** name => batch, read from the migrations table itself. */
const batches = async () =>
  Object.fromEntries((await query('select name, batch from migrations')).map((row) => [String(row.name), Number(row.batch)]))

const tables = async () =>
  (await query("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")).map((row) => String(row.name))

function addMigration(name: string, up: string, down: string): void {
  app.write(
    `database/migrations/${name}.ts`,
    `import type { Database } from 'svc'\n` +
      `export async function up(db: Database): Promise<void> {\n${up}\n}\n` +
      `export async function down(db: Database): Promise<void> {\n${down}\n}\n`,
  )
}
const addComments = () =>
  addMigration(
    EXTRA,
    "  await db.execute('create table comments (id integer primary key, post_id integer not null, body text not null)')",
    "  await db.execute('drop table comments')",
  )

describe('svc migrate', () => {
  it('runs every pending migration as batch 1, creating storage/database.sqlite; a second run has nothing to do', async () => {
    expect(migrations.length).toBeGreaterThan(0)
    expect(await json('migrate')).toEqual({ ran: migrations })
    expect(existsSync(app.path('storage', 'database.sqlite'))).toBe(true)
    expect(await tables()).toContain('posts')
    expect(await json('migrate')).toEqual({ ran: [] })
    const human = await svc('migrate')
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toBe('Nothing to migrate.\n')
  })

  it('prints each migration it runs; progress on stderr: plain numbered lines off a terminal, one live line on it', async () => {
    const { exitCode, stdout, stderr } = await svc('migrate')
    expect(exitCode).toBe(0)
    expect(stdout.trimEnd().split('\n')).toEqual(migrations.map((name) => `Migrated: ${name}`))
    expect(stderr.trimEnd().split('\n')).toEqual(migrations.map((name, index) => `[${index + 1}/${migrations.length}] ${name}`))

    await svc('migrate:rollback')
    const tty = await runSvc(['migrate'], { cwd: app.dir, tty: true })
    expect(tty.stdout).toContain(`Migrated: ${migrations.at(-1)}\n`)
    expect(tty.stderr).toMatch(/^\r\x1b\[2K. Migrating/)
    expect(tty.stderr).not.toContain('\n')
    expect(tty.stderr.endsWith('\r\x1b[2K')).toBe(true)
  })

  it('refuses to run in production without --force', async () => {
    const refused = await runSvc(['migrate'], { cwd: app.dir, env: { APP_ENV: 'production', JWT_SECRET: 's'.repeat(40) } })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('error [E_PRODUCTION]')
    expect(refused.stderr).toContain('svc migrate --force')
    expect(await tables()).toEqual([])
    const forced = await runSvc(['migrate', '--force'], { cwd: app.dir, env: { APP_ENV: 'production', JWT_SECRET: 's'.repeat(40) } })
    expect(forced.exitCode, forced.stderr).toBe(0)
    expect(Object.keys(await batches())).toEqual(migrations)
  })

  it('a failing migration stops the run: exit 1, its name and the SQL error; earlier ones stay applied', async () => {
    await json('migrate')
    addComments()
    addMigration(
      BROKEN,
      "  await db.execute('create table half_done (id integer)')\n  await db.execute('create index broken on no_such_table (id)')",
      '',
    )
    const { exitCode, stdout, stderr } = await svc('migrate')
    expect(exitCode).toBe(1)
    // What did run is said as it happens; the broken one was started, never reported done.
    expect(stdout).toBe(`Migrated: ${EXTRA}\n`)
    expect(stderr).toContain(`[2/2] ${BROKEN}\n`)
    expect(stderr).toMatch(new RegExp(`error \\[E_MIGRATION\\]: Migration ${BROKEN} failed: .*no such table: (main\\.)?no_such_table`))
    expect(stderr).toContain('fix: ')
    expect(stderr).not.toMatch(/^\s+at /m) // no stack for a user error

    const applied = await batches()
    expect(applied[EXTRA]).toBe(2)
    expect(BROKEN in applied).toBe(false)
    expect(await tables()).toContain('comments')
    expect(await tables()).not.toContain('half_done')
  })

  it('a full disk (SQLITE_FULL) stopping a migration says to free space, not to fix the migration', async () => {
    await json('migrate')
    // SQLite's own page limit on this connection: the same SQLITE_FULL a full disk gives, without filling one.
    addMigration(
      BROKEN,
      "  const pages = Number((await db.execute('pragma page_count')).rows[0]![0])\n" +
        "  await db.execute(`pragma max_page_count = ${pages}`)\n" +
        "  await db.execute('create table filler (body text)')\n" +
        "  await db.execute(\"insert into filler values (zeroblob(1000000))\")",
      '',
    )
    const { exitCode, stderr } = await svc('migrate')
    expect(exitCode).toBe(1)
    expect(stderr).toMatch(new RegExp(`error \\[E_MIGRATION\\]: Migration ${BROKEN} failed: SQLITE_FULL: database or disk is full\\n`))
    expect(stderr).toContain(
      '  fix: the disk holding storage/database.sqlite is full: free space there (svc log:cleanup --days N deletes old traces), then run svc migrate again; the ones before it stay applied\n',
    )
  })
})

describe('in production, every command that changes or drops data needs --force', () => {
  const production = { APP_ENV: 'production', JWT_SECRET: 's'.repeat(40) }
  const inProduction = (...args: string[]) => runSvc(args, { cwd: app.dir, env: production })

  it.each([
    ['migrate:fresh', ['--seed']],
    ['migrate:rollback', []],
    ['db:seed', []],
  ])('%s refuses with E_PRODUCTION and leaves the database as it was; --force runs it', async (command, extra) => {
    await json('migrate')
    await query("insert into posts (title, slug) values ('kept', 'kept')")
    const before = { tables: await tables(), batches: await batches(), posts: (await query('select count(*) as n from posts'))[0]!.n }

    const refused = await inProduction(command, ...extra)
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toBe(`error [E_PRODUCTION]: ${refused.stderr.slice('error [E_PRODUCTION]: '.length).split('\n')[0]}\n  fix: run svc ${command} --force when you mean it\n`)
    expect(refused.stderr).toMatch(new RegExp(`^error \\[E_PRODUCTION\\]: APP_ENV is production: svc ${command} `))
    expect(refused.stdout).toBe('')
    expect({ tables: await tables(), batches: await batches(), posts: (await query('select count(*) as n from posts'))[0]!.n }).toEqual(before)

    const forced = await runSvc([command, ...extra, '--force', '--json'], {
      cwd: app.dir,
      env: { ...production, ADMIN_PASSWORD: 'admin-password-1234', USER_PASSWORD: 'user-password-1234' },
    })
    expect(forced.exitCode, forced.stderr).toBe(0)
  })

  it.each([['serve'], ['live']])('%s --migrate refuses with E_PRODUCTION before it migrates or listens', async (command) => {
    const refused = await inProduction(command, '--migrate', '--port', '0')
    expect(refused.exitCode).toBe(1)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toBe(
      'error [E_PRODUCTION]: APP_ENV is production: svc serve --migrate changes the live database before serving\n' +
        '  fix: run svc migrate --force in the deploy step, then svc serve; or svc serve --migrate --force when you mean it\n',
    )
    expect(await tables()).toEqual([])
  })

  it('serve in production says the pending migrations at start too, with the production fix', async () => {
    await json('migrate')
    await query("delete from migrations where name = (select max(name) from migrations)")
    const server = startSvc(['serve', '--port', '0'], { cwd: app.dir, env: production })
    try {
      await server.waitFor(/^svc listening on /)
      expect(server.output.stderr).toContain(`1 migration(s) pending (${migrations.at(-1)}): the routes using their tables answer 500 until you run svc migrate --force (the deploy step).`)
    } finally {
      expect((await server.stop()).exitCode).toBe(0)
    }
  })

  it('serve without --migrate says at start which migrations are pending (development), and nothing once none is', async () => {
    const server = startSvc(['serve', '--port', '0'], { cwd: app.dir, env: { APP_ENV: 'development' } })
    try {
      await server.waitFor(/^svc listening on /)
      expect(server.output.stderr).toContain(`${migrations.length} migration(s) pending (${migrations.slice(0, 3).join(', ')} and ${migrations.length - 3} more): `)
      expect(server.output.stderr).toContain('answer 500 until you run svc migrate (or serve with --migrate, as npm start does).')
    } finally {
      expect((await server.stop()).exitCode).toBe(0)
    }
    expect((await svc('migrate')).exitCode).toBe(0)
    const migrated = startSvc(['serve', '--port', '0'], { cwd: app.dir, env: { APP_ENV: 'development' } })
    try {
      await migrated.waitFor(/^svc listening on /)
      expect(migrated.output.stderr).not.toContain('pending')
    } finally {
      expect((await migrated.stop()).exitCode).toBe(0)
    }
  })

  it('a request on a table that does not exist says why: migrations not run (storage/ deleted), or none creates it', async () => {
    const login = async (url: string) =>
      fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'password-1234' }) })
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    // No database file: what a start finds after `rm -rf storage`.
    const server = startSvc(['serve', '--port', '0', '--quiet'], { cwd: app.dir, env: { APP_ENV: 'development' } })
    try {
      const [, url] = await server.waitFor(/^svc listening on (http:\S+) /)
      const response = await login(url!)
      expect(response.status).toBe(500)
      const body = await response.json()
      expect(body.exception.class).toBe('MissingTableError')
      expect(body.exception.message).toBe(
        `no such table: users: ${migrations.length} migration(s) have not run on the database storage/database.sqlite ` +
          `(no migration has run on it: a new or emptied database, as after deleting storage/): ` +
          `${migrations.slice(0, 3).join(', ')} and ${migrations.length - 3} more; run svc migrate (or svc serve --migrate)`,
      )
      expect(logged.mock.calls.map(String).join('\n')).toContain('MissingTableError: no such table: users: ')
    } finally {
      expect((await server.stop()).exitCode).toBe(0)
    }
    // `svc why` reads the trace, which keeps the driver's words: it says why from the database as it is now.
    const why = await svcJson<{ failure: { kind: string; message: string; explanation: string } }>(['why'], { cwd: app.dir })
    expect(why.failure).toMatchObject({ kind: 'exception', message: 'SQLITE_ERROR: no such table: users' })
    expect(why.failure.explanation).toContain(`Now: ${migrations.length} migration(s) have not run on the database storage/database.sqlite (no migration has run on it`)
    expect((await svc('migrate')).exitCode).toBe(0)
    await query('drop table users')
    logged.mockClear()
    // Production: the client gets the plain 500; the log line says why.
    const production = startSvc(['serve', '--port', '0'], { cwd: app.dir, env: { APP_ENV: 'production', JWT_SECRET: 's'.repeat(40) } })
    try {
      const [, url] = await production.waitFor(/^svc listening on (http:\S+) /)
      const response = await login(url!)
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ success: false, error: 'Internal Server Error', code: 500 })
      expect(logged.mock.calls.map(String).join('\n')).toContain(
        'MissingTableError: no such table: users: every migration in database/migrations has run on the database storage/database.sqlite, ' +
          '20260101000100_create_users_table among them, which creates it: the table was dropped since',
      )
    } finally {
      logged.mockRestore()
      expect((await production.stop()).exitCode).toBe(0)
    }
  })

  it('serve on a database file that does not exist says it created it empty, in production too; not with --migrate, nor once it exists', async () => {
    const note = 'storage/database.sqlite did not exist: svc serve created it empty, without tables (was storage/ deleted, or its volume not mounted?). '
    const production = startSvc(['serve', '--port', '0'], { cwd: app.dir, env: { APP_ENV: 'production', JWT_SECRET: 's'.repeat(40) } })
    try {
      await production.waitFor(/^svc listening on /)
      expect(production.output.stderr).toContain(`${note}The routes that use a table answer 500 until svc migrate --force runs.\n`)
    } finally {
      expect((await production.stop()).exitCode).toBe(0)
    }
    // The file exists now (empty): nothing more to say of it.
    const again = startSvc(['serve', '--port', '0'], { cwd: app.dir, env: { APP_ENV: 'production', JWT_SECRET: 's'.repeat(40) } })
    try {
      await again.waitFor(/^svc listening on /)
      expect(again.output.stderr).not.toContain('did not exist')
    } finally {
      expect((await again.stop()).exitCode).toBe(0)
    }
    for (const file of readdirSync(app.path('storage'))) if (file.startsWith('database.sqlite')) rmSync(app.path('storage', file))
    const migrating = startSvc(['serve', '--port', '0', '--migrate'], { cwd: app.dir, env: { APP_ENV: 'development' } })
    try {
      await migrating.waitFor(/^svc listening on /)
      expect(migrating.output.stderr).not.toContain('did not exist')
    } finally {
      expect((await migrating.stop()).exitCode).toBe(0)
    }
  })

  it('serve --migrate --force migrates in production, then serves', async () => {
    const server = startSvc(['serve', '--migrate', '--force', '--port', '0'], { cwd: app.dir, env: production })
    try {
      const [, url] = await server.waitFor(/^svc listening on (http:\/\/127\.0\.0\.1:\d+) \(production\)$/)
      expect((await fetch(`${url}/health/live`)).status).toBe(200)
      expect(Object.keys(await batches()).sort()).toEqual([...migrations].sort())
    } finally {
      expect((await server.stop()).exitCode).toBe(0)
    }
  })

  it('--help of each lists --force', async () => {
    for (const command of ['migrate', 'migrate:fresh', 'migrate:rollback', 'db:seed', 'serve', 'live']) {
      expect((await svc(command, '--help')).stdout, command).toMatch(/--force/)
    }
  })
})

describe('files in database/migrations that would not run', () => {
  it('a misnamed module is refused by every migration command and doctor, naming it and a name to give it; other files are left alone', async () => {
    app.write('database/migrations/create_misnamed_table.ts', "export async function up() {}\n")
    app.write('database/migrations/_helpers.ts', 'export const columns = 1\n')
    app.write('database/migrations/README.md', 'notes\n')
    try {
      for (const command of ['migrate', 'migrate:status', 'migrate:rollback', 'migrate:fresh']) {
        const { exitCode, stdout, stderr } = await svc(command)
        expect(exitCode, command).toBe(1)
        expect(stdout, command).toBe('')
        expect(stderr, command).toMatch(
          /^error \[E_MIGRATION_NAME\]: create_misnamed_table\.ts in database\/migrations\/ is not named <timestamp>_<name>\.ts .*\n  fix: rename it: mv database\/migrations\/create_misnamed_table\.ts database\/migrations\/\d{14}_create_misnamed_table\.ts /,
        )
      }
      expect(await tables()).toEqual([]) // nothing ran, not even the well-named ones
      const doctor = await svc('doctor')
      expect(doctor.stdout).toMatch(/^fail +migrations +create_misnamed_table\.ts in database\/migrations\/ is not named/m)
    } finally {
      for (const file of ['create_misnamed_table.ts', '_helpers.ts', 'README.md']) rmSync(app.path('database', 'migrations', file))
    }
    // The helper, the notes and the bundle's index.ts alone are no migrations, and no error.
    app.write('database/migrations/_helpers.ts', 'export const columns = 1\n')
    try {
      expect(await json('migrate')).toEqual({ ran: migrations })
    } finally {
      rmSync(app.path('database', 'migrations', '_helpers.ts'))
    }
  })

  it('a migration that does not load (a syntax error) is E_MIGRATION with its file, where, and a fix line; nothing runs', async () => {
    app.write(`database/migrations/${BROKEN}.ts`, "export async function up(db) {\n  await db.execute('x'\n}\n")
    const { exitCode, stdout, stderr } = await svc('migrate')
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toMatch(
      new RegExp(`^error \\[E_MIGRATION\\]: Migration ${BROKEN}\\.ts does not load: .*Unexpected token.* at database/migrations/${BROKEN}\\.ts:3:0\n  fix: fix database/migrations/${BROKEN}\\.ts \\(nothing ran`),
    )
    expect(await tables()).toEqual([])
  })
})

describe('svc migrate:status', () => {
  it('with no database yet: every migration pending, a note saying so, and no database file made', async () => {
    const result = await runSvc(['migrate:status', '--json'], { cwd: app.dir })
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ migrations: migrations.map((name) => ({ name, status: 'pending', batch: null, ran_at: null, file_missing: false })) })
    expect(result.stderr).toContain('No database yet at')
    expect(existsSync(app.path('storage', 'database.sqlite'))).toBe(false)
  })

  it('--json before and after migrating; --pending lists only what has not run', async () => {
    const before = await json<StatusJson>('migrate:status')
    expect(before.migrations).toEqual(migrations.map((name) => ({ name, status: 'pending', batch: null, ran_at: null, file_missing: false })))
    expect((await json<StatusJson>('migrate:status', '--pending')).migrations.map((row) => row.name)).toEqual(migrations)

    await json('migrate')
    const after = await json<StatusJson>('migrate:status')
    expect(after.migrations.map(({ name, status, batch, file_missing }) => ({ name, status, batch, file_missing }))).toEqual(
      migrations.map((name) => ({ name, status: 'ran', batch: 1, file_missing: false })),
    )
    for (const row of after.migrations) expect(row.ran_at).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect(await json<StatusJson>('migrate:status', '--pending')).toEqual({ migrations: [] })
  })

  it('prints a table, and says so when nothing is pending', async () => {
    await json('migrate')
    addComments()
    const table = await svc('migrate:status')
    expect(table.exitCode).toBe(0)
    const lines = table.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^STATUS +MIGRATION +BATCH$/)
    expect(lines[1]).toMatch(new RegExp(`^Ran +${migrations[0]} +1$`))
    expect(lines.at(-1)).toMatch(new RegExp(`^Pending +${EXTRA}$`))
    await json('migrate')
    expect((await svc('migrate:status', '--pending')).stdout).toBe('No pending migrations.\n')
  })
})

describe('an applied migration whose file was deleted', () => {
  it('migrate:status flags it (file_missing in --json, "Ran, file missing" and a note in the table); rollback refuses before rolling back anything, saying to restore it', async () => {
    await json('migrate') // batch 1
    addComments()
    addMigration(BROKEN, "  await db.execute('create table extra (id integer)')", "  await db.execute('drop table extra')")
    await json('migrate') // batch 2: comments, then BROKEN's (here a sound one)
    const source = app.read('database', 'migrations', `${EXTRA}.ts`)
    rmSync(app.path('database', 'migrations', `${EXTRA}.ts`))
    try {
      const status = await json<StatusJson>('migrate:status')
      expect(status.migrations.filter((row) => row.file_missing)).toEqual([
        { name: EXTRA, status: 'ran', batch: 2, ran_at: expect.stringMatching(/^\d{4}-/), file_missing: true },
      ])
      expect(status.migrations.filter((row) => !row.file_missing).map((row) => row.name)).toEqual([...migrations, BROKEN])

      const table = await svc('migrate:status')
      expect(table.exitCode).toBe(0)
      expect(table.stdout).toMatch(new RegExp(`^Ran, file missing +${EXTRA} +2$`, 'm'))
      expect(table.stdout).toMatch(new RegExp(`^Ran +${BROKEN} +2$`, 'm'))
      expect(table.stderr).toContain(`One applied migration has no file in database/migrations/ (${EXTRA})`)

      const refused = await svc('migrate:rollback')
      expect(refused.exitCode).toBe(1)
      expect(refused.stdout).toBe('')
      expect(refused.stderr).toBe(
        `error [E_MIGRATION]: Migration ${EXTRA} cannot be rolled back: its file is missing\n` +
          `  fix: nothing was rolled back: restore database/migrations/${EXTRA}.ts (from version control) so that its down() can run, then svc migrate:rollback again\n`,
      )
      // The batch stays whole: BROKEN's migration, newer and with its file, was not rolled back either.
      expect(Object.keys(await batches()).sort()).toEqual([...migrations, EXTRA, BROKEN].sort())
      expect(await tables()).toEqual(expect.arrayContaining(['comments', 'extra']))
    } finally {
      app.write(`database/migrations/${EXTRA}.ts`, source)
    }
    expect(await json('migrate:rollback')).toEqual({ rolled_back: [BROKEN, EXTRA] })
  })

  it('a migration without down() stops a rollback with its own hint', async () => {
    await json('migrate')
    addMigration(EXTRA, "  await db.execute('create table comments (id integer)')", '')
    app.write(`database/migrations/${EXTRA}.ts`, app.read('database', 'migrations', `${EXTRA}.ts`).replace(/export async function down[\s\S]*$/, ''))
    await json('migrate')
    const refused = await svc('migrate:rollback')
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain(`error [E_MIGRATION]: Migration ${EXTRA} cannot be rolled back: it has no down()\n`)
    expect(refused.stderr).toContain(`fix: nothing was rolled back: add export async function down(db) to database/migrations/${EXTRA}.ts`)
  })
})

describe('svc migrate:rollback', () => {
  it('rolls back the last batch by default; --step=N rolls back N batches', async () => {
    await json('migrate') // batch 1: the example's
    addComments()
    await json('migrate') // batch 2: comments
    expect(await json('migrate:rollback')).toEqual({ rolled_back: [EXTRA] })
    expect(await tables()).not.toContain('comments')
    expect(Object.keys(await batches()).sort()).toEqual(migrations)

    await json('migrate') // batch 2 again
    expect(await json('migrate:rollback', '--step=2')).toEqual({ rolled_back: [EXTRA, ...[...migrations].reverse()] })
    expect(await tables()).toEqual(['migrations'])
    expect(await json('migrate:rollback')).toEqual({ rolled_back: [] })
    expect((await svc('migrate:rollback')).stdout).toBe('Nothing to roll back.\n')
  })

  it('--step takes a whole number from 1', async () => {
    for (const step of ['0', 'two']) {
      const { exitCode, stderr } = await svc('migrate:rollback', `--step=${step}`)
      expect(exitCode, step).toBe(1)
      expect(stderr).toContain('error [E_BAD_OPTION]: --step takes a whole number of at least 1')
    }
  })
})

describe('svc migrate:fresh', () => {
  it('drops every table and migrates again as batch 1', async () => {
    await json('migrate')
    addComments()
    await json('migrate')
    await query("insert into posts (title, slug) values ('gone', 'gone')")
    expect(await json('migrate:fresh')).toEqual({ ran: [...migrations, EXTRA], seeded: [], seeded_rows: [] })
    expect((await query('select count(*) as n from posts'))[0]!.n).toBe(0)
    expect(new Set(Object.values(await batches()))).toEqual(new Set([1]))
  })

  it('a migration that does not load stops it before anything is dropped, and it does not say it dropped', async () => {
    await json('migrate')
    await query("insert into posts (title, slug) values ('kept', 'kept')")
    app.write(`database/migrations/${BROKEN}.ts`, 'export const nothing = 1\n')
    const { exitCode, stdout, stderr } = await svc('migrate:fresh')
    expect(exitCode).toBe(1)
    expect(stderr).toContain(`error [E_BAD_MIGRATION]: ${BROKEN}.ts does not export an up(db) function\n`)
    // It had no fix line.
    expect(stderr).toContain(`  fix: export async function up(db: Database) { ... } (and down(db) to undo it) from database/migrations/${BROKEN}.ts; nothing ran`)
    expect(stdout).toBe('')
    expect((await query("select count(*) as n from posts where slug = 'kept'"))[0]!.n).toBe(1)
  })

  it('--seed runs the seeders; stdout stays one JSON document', async () => {
    const result = await json('migrate:fresh', '--seed')
    expect(result).toEqual({ ran: migrations, seeded: seeders, seeded_rows: expect.arrayContaining([{ seeder: 'posts', table: 'posts', added: 2 }]) })
    expect(Number((await query('select count(*) as n from posts'))[0]!.n)).toBeGreaterThan(0)
  })
})

describe('svc migrate:bundle', () => {
  it('the example\'s bundled module is up to date; a new migration makes --check fail until the module is written again', async () => {
    const check = await runSvc(['migrate:bundle', '--check', '--json'], { cwd: app.path() })
    expect(check.exitCode).toBe(0)
    expect(JSON.parse(check.stdout)).toMatchObject({ file: 'database/migrations/index.ts', migrations, stale: false, written: false })

    writeFileSync(app.path('database', 'migrations', '20990101000000_add_tags.ts'), "import type { Database } from 'svc'\nexport async function up(db: Database) {\n  await db.execute('create table tags (id integer primary key)')\n}\n")
    try {
      expect((await runSvc(['migrate:bundle', '--check'], { cwd: app.path() })).exitCode).toBe(1)
      // --json: one document saying so (it was followed by an E_BUNDLE_STALE error document: not JSON as a whole)
      const stale = await runSvc(['migrate:bundle', '--check', '--json'], { cwd: app.path() })
      expect(stale.exitCode).toBe(1)
      expect(JSON.parse(stale.stdout)).toMatchObject({ stale: true, written: false })
      await expectContract('migrate:bundle', JSON.parse(stale.stdout))
      const written = await runSvc(['migrate:bundle', '--json'], { cwd: app.path() })
      expect(JSON.parse(written.stdout)).toMatchObject({ stale: true, written: true, migrations: [...migrations, '20990101000000_add_tags'] })
      expect(readFileSync(app.path('database', 'migrations', 'index.ts'), 'utf8')).toContain(`import * as m${migrations.length} from './20990101000000_add_tags.ts'`)
      expect((await runSvc(['migrate:bundle', '--check'], { cwd: app.path() })).exitCode).toBe(0)
    } finally {
      rmSync(app.path('database', 'migrations', '20990101000000_add_tags.ts'))
      await runSvc(['migrate:bundle'], { cwd: app.path() })
    }
  })
})
