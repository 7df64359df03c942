/**
 * The auth commands, spawned as the built `svc` in a temp copy of
 * examples/blog: make:auth, make:apikey-table, make:apikey, key:generate
 * --rs256; and the example's own auth migrations stay what make:auth writes.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH_MIGRATION_SOURCES, renderMigrationFile } from '../../cli/project/migration-file.ts'
import { copyExampleApp, REPO_ROOT, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => {
  app = copyExampleApp()
})
afterAll(() => app.remove())

const svc = (...args: string[]) => runSvc(args, { cwd: app.dir })
const json = <T = any>(...args: string[]) => svcJson<T>(args, { cwd: app.dir })

async function query(sql: string, args: any[] = []) {
  const client = createClient({ url: `file:${app.path('storage', 'database.sqlite')}` })
  try {
    return (await client.execute({ sql, args })).rows
  } finally {
    client.close()
  }
}

describe('the example app', () => {
  it('has exactly the migrations make:auth writes', () => {
    for (const source of AUTH_MIGRATION_SOURCES) {
      const file = join(REPO_ROOT, 'examples', 'blog', 'database', 'migrations', `${source.name}.ts`)
      expect(readFileSync(file, 'utf8'), source.name).toBe(renderMigrationFile(source, 'make:auth'))
    }
  })
})

describe('svc make:auth', () => {
  it('writes the auth migrations once (skips them afterwards, --force rewrites)', async () => {
    const dir = app.path('database', 'migrations')
    for (const source of AUTH_MIGRATION_SOURCES) rmSync(join(dir, `${source.name}.ts`))
    const latestBefore = readdirSync(dir).filter((file) => /^\d{14}_/.test(file)).sort().at(-1)!
    const first = await json('make:auth')
    // Dated as every generated migration: after the app's latest, one second apart, in their own order.
    const names = AUTH_MIGRATION_SOURCES.map((s) => s.name.replace(/^\d+_/, ''))
    expect(first.written).toEqual(names.map((name) => expect.stringMatching(new RegExp(`^database/migrations/\\d{14}_${name}\\.ts$`))))
    const stamps = first.written.map((file: string) => /(\d{14})_/.exec(file)![1]!)
    expect([...stamps].sort()).toEqual(stamps)
    expect(new Set(stamps).size).toBe(stamps.length)
    expect(`${stamps[0]}_`.localeCompare(latestBefore)).toBe(1)
    expect(first.skipped).toEqual([])
    expect(readdirSync(dir).filter((f) => f.includes('create_users_table'))).toHaveLength(1)
    const second = await json('make:auth')
    expect(second).toEqual({ written: [], skipped: first.written })
    // --force rewrites only what differs: these hold what make:auth writes.
    expect(await json('make:auth', '--force')).toEqual({ written: [], skipped: first.written })
    // Not yet run, a changed one is put back.
    const users = app.path(first.written[names.indexOf('create_users_table')])
    const stock = readFileSync(users, 'utf8')
    writeFileSync(users, stock.replace('name text not null', 'name text not null, nickname text'))
    const restored = await svc('make:auth', '--force')
    expect(restored.stdout).toContain(`Overwrote ${first.written[names.indexOf('create_users_table')]}`)
    expect(readFileSync(users, 'utf8')).toBe(stock)

    const human = await svc('make:auth')
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toContain(`Exists  ${first.written[names.indexOf('create_users_table')]}`)
    expect(human.stdout).toContain(`${first.written[names.indexOf('create_users_table')]} (unchanged)`)
  })

  it('then migrate creates the tables', async () => {
    const ran: string[] = (await json('migrate')).ran
    // After the app's own, in their order.
    const auth = AUTH_MIGRATION_SOURCES.map((s) => s.name.replace(/^\d+_/, ''))
    expect(ran.slice(-auth.length).map((name) => name.replace(/^\d+_/, ''))).toEqual(auth)
    const tables = (await query("select name from sqlite_master where type = 'table'")).map((row) => String(row.name))
    expect(tables).toEqual(expect.arrayContaining(['users', 'refresh_tokens', 'one_time_tokens', 'security_events', 'rate_limits']))
  })

  it('--force never rewrites an auth migration the database has run: it refuses, naming it, and writes nothing', async () => {
    // The user customised the users table before migrating; the database has that text's table.
    const dir = app.path('database', 'migrations')
    const file = readdirSync(dir).find((name) => name.endsWith('_create_users_table.ts'))!
    const customised = readFileSync(join(dir, file), 'utf8').replace('name text not null', 'name text not null, nickname text')
    writeFileSync(join(dir, file), customised)
    await json('migrate:fresh')
    const before = Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]))

    const refused = await svc('make:auth', '--force')
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('error [E_MIGRATION_APPLIED]')
    expect(refused.stderr).toContain(`--force would rewrite database/migrations/${file}, which the database has already run`)
    expect(refused.stderr).toContain('svc make:migration add_')
    const asJson = await svc('make:auth', '--force', '--json')
    expect(asJson.exitCode).toBe(1)
    expect(JSON.parse(asJson.stdout).error).toMatchObject({ code: 'E_MIGRATION_APPLIED', exit_code: 1 })
    expect(asJson.stderr).toContain('E_MIGRATION_APPLIED')
    expect(Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]))).toEqual(before)
    // Without --force it is kept, as any existing file, saying why --force would not rewrite it.
    const kept = await svc('make:auth')
    expect(kept.exitCode).toBe(0)
    expect(kept.stdout).toContain(`Exists  database/migrations/${file} (differs; the database has run it, so --force will not rewrite it: change the table with a new migration)`)
    expect((await json('make:auth')).applied).toEqual([`database/migrations/${file}`])
    expect(readFileSync(join(dir, file), 'utf8')).toBe(customised)
  })

  it('--force after svc new and migrate has nothing to rewrite: those files differ only in the command their first line names', async () => {
    const dir = app.path('database', 'migrations')
    const files = AUTH_MIGRATION_SOURCES.map((source) => readdirSync(dir).find((name) => name.endsWith(`${source.name.replace(/^\d+_/, '')}.ts`))!)
    AUTH_MIGRATION_SOURCES.forEach((source, i) => writeFileSync(join(dir, files[i]!), renderMigrationFile(source, 'new')))
    await json('migrate:fresh')
    const forced = await svc('make:auth', '--force')
    expect(forced.stderr).not.toContain('E_MIGRATION_APPLIED')
    expect(forced.exitCode).toBe(0)
    for (const name of files) expect(forced.stdout).toContain(`database/migrations/${name} (unchanged)`)
    expect(readFileSync(join(dir, files[0]!), 'utf8')).toContain('Written by `svc new`')
  })
})

describe('svc make:apikey-table and make:apikey', () => {
  it('refuses make:apikey before the table exists, with the fix', async () => {
    const result = await svc('make:apikey', 'billing', 'posts:read', '30')
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('error [E_NO_APIKEY_TABLE]')
    expect(result.stderr).toContain('svc make:apikey-table, then svc migrate')
  })

  it('writes the migration, and make:apikey prints a key once and stores its hash', async () => {
    const before = readdirSync(app.path('database', 'migrations')).filter((name) => /^\d{14}_/.test(name)).sort()
    const table = await json('make:apikey-table')
    // Dated now (or after the app's latest migration), as make:migration dates them: it sorts after every one the app has.
    expect(table.written).toEqual([expect.stringMatching(/^database\/migrations\/\d{14}_create_api_keys_table\.ts$/)])
    expect(table.written[0].split('/').at(-1) > before.at(-1)!).toBe(true)
    await json('migrate')
    const created = await json('make:apikey', 'billing', 'posts:read,posts:write', '30')
    expect(created).toMatchObject({ name: 'billing', scopes: ['posts:read', 'posts:write'], id: expect.any(Number) })
    expect(created.key).toMatch(/^svc_/)
    const days = (Date.parse(created.expires_at) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(29.9)
    expect(days).toBeLessThanOrEqual(30)
    const rows = await query('select * from api_keys')
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(created.key)

    const human = await svc('make:apikey', 'reporting', 'reports:read', '1')
    expect(human.exitCode).toBe(0)
    expect(human.stdout.trim()).toMatch(/^svc_[A-Za-z0-9_-]+$/)
    expect(human.stderr).toContain('only its hash is stored')
  })

  it.each([
    [['make:apikey', 'x', 'posts:read', '0'], /days must be a whole number from 1 to 3650/],
    [['make:apikey', 'x', 'posts:read', 'ten'], /days must be a whole number/],
    [['make:apikey', 'x', 'bad scope!', '3'], /invalid scope "bad scope!"/],
    [['make:apikey', 'x', ',', '3'], /at least one scope/],
  ])('svc %j fails with E_BAD_ARGUMENT', async (args, message) => {
    const result = await svc(...args)
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('E_BAD_ARGUMENT')
    expect(result.stderr).toMatch(message)
  })
})

describe('svc key:generate --rs256', () => {
  it('creates the key pair (private key 0600) and sets JWT_ALGORITHM=RS256; refuses to overwrite without --force', async () => {
    const result = await json('key:generate', '--rs256')
    expect(result).toMatchObject({ algorithm: 'RS256', private_key: null, written: app.path('.env') })
    expect(readFileSync(result.private_key_file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
    expect(readFileSync(result.public_key_file, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n/)
    expect(statSync(result.private_key_file).mode & 0o777).toBe(0o600)
    expect(app.read('.env')).toMatch(/^JWT_ALGORITHM=RS256$/m)

    const original = readFileSync(result.private_key_file, 'utf8')
    const again = await svc('key:generate', '--rs256')
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('E_KEY_EXISTS')
    expect(readFileSync(result.private_key_file, 'utf8')).toBe(original)
    const forced = await json('key:generate', '--rs256', '--force')
    expect(readFileSync(forced.private_key_file, 'utf8')).not.toBe(original)

    const shown = await json('key:generate', '--rs256', '--show')
    expect(shown.private_key).toMatch(/BEGIN PRIVATE KEY/)
    expect(shown.private_key_file).toBeNull()
  })
})
