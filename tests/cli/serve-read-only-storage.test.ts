/**
 * `svc serve` on a database file it may read but not write (a storage/
 * made by another user, `sudo svc migrate`): SQLite opens such a file
 * read-only without a word, and the server used to start and answer 500
 * SQLITE_READONLY to every write. It now refuses to start, naming the file
 * and the fix (docs/storage.md). Tests run as root, whom file modes do not
 * stop: the server runs as `nobody` (setpriv); as another user, the file's
 * mode is enough. The check itself is fed SQLite's real errors. A `.env`
 * that user may not read or create is said as such too.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, renameSync } from 'node:fs'
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isReadOnlyStorage, readOnlyDatabaseError } from '../../cli/database/read-only.ts'
import { copyExampleApp, SVC_BIN, svcEnv, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { stopChild, waitForOutput } from '../helpers/child-process.ts'

const root = process.getuid?.() === 0
const canDropPrivileges = root && spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']).status === 0

describe('the read-only check, fed the errors SQLite gives', () => {
  it('a write to a database SQLite opened read-only, and a file it cannot open, are read-only storage; other errors are not', async () => {
    const client = createClient({ url: 'file::memory:' })
    await client.execute('create table t (x)')
    await client.execute('pragma query_only = on')
    const readonly = await client.execute('insert into t values (1)').catch((error: unknown) => error)
    client.close()
    expect(String((readonly as Error).message)).toContain('SQLITE_READONLY')
    expect(isReadOnlyStorage(readonly)).toBe(true)

    // A file in a folder that cannot be written (here: one that is not there): libSQL's words for SQLITE_CANTOPEN.
    let unopened: unknown
    try {
      createClient({ url: 'file:/nonexistent-svc-folder/database.sqlite' })
    } catch (error) {
      unopened = error
    }
    expect(String((unopened as Error).message)).toMatch(/Unable to open connection to local database .*: 14/)
    expect(isReadOnlyStorage(unopened)).toBe(true)
    expect(isReadOnlyStorage(new Error('wrapped', { cause: readonly }))).toBe(true)

    const other = createClient({ url: 'file::memory:' })
    const syntax = await other.execute('selec 1').catch((error: unknown) => error)
    other.close()
    expect(isReadOnlyStorage(syntax)).toBe(false)

    const refusal = readOnlyDatabaseError('storage/database.sqlite', readonly)
    expect(refusal.code).toBe('E_STORAGE_READONLY')
    expect(refusal.message).toMatch(/^Cannot write the database storage\/database\.sqlite: .*SQLITE_READONLY/)
    expect(refusal.hint).toContain('write access to storage/database.sqlite and its folder storage')
  })
})

describe.skipIf(root && !canDropPrivileges)('svc serve on a database file it cannot write', () => {
  let app: AppCopy
  beforeAll(async () => {
    app = copyExampleApp()
    // Written here, readable by the server's user (serve would otherwise create it, mode 600, in a folder it cannot write).
    app.write('.env', 'JWT_SECRET=read-only-storage-secret-0123456789abcdef\n')
    const migrated = await runSvc(['migrate'], { cwd: app.dir, env: { JWT_SECRET: 'read-only-storage-secret-0123456789abcdef' } })
    expect(migrated.exitCode, migrated.stderr).toBe(0)
    // The folder may be written (logs, traces, the module cache), the database file may not: the case SQLite opens silently.
    chmodSync(app.dir, 0o755)
    chmodSync(app.path('storage'), 0o777)
    if (!root) chmodSync(app.path('storage', 'database.sqlite'), 0o444)
  }, 60_000)
  afterAll(() => app?.remove())

  it('refuses to start, naming the file and what to do, instead of answering 500 to every write', async () => {
    const command = canDropPrivileges
      ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, SVC_BIN, 'serve', '--port', '0']
      : [process.execPath, SVC_BIN, 'serve', '--port', '0']
    const child = spawn(command[0]!, command.slice(1), {
      cwd: app.dir,
      env: svcEnv({ JWT_SECRET: 'read-only-storage-secret-0123456789abcdef', HOME: app.dir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      // Either it says it listens (the defect) or it stops with its error.
      const { output } = await waitForOutput(child, /svc listening on|error \[/, 'svc serve', 60_000).catch((error: Error) => ({ output: () => error.message }))
      expect(output()).not.toContain('svc listening on')
      expect(await exited).toBe(1)
      expect(output()).toContain('error [E_STORAGE_READONLY]: Cannot write the database storage/database.sqlite')
      expect(output()).toMatch(/fix: give the user running svc \(uid \d+\) write access to storage\/database\.sqlite and its folder storage/)
    } finally {
      await stopChild(child)
    }
  }, 90_000)

  it('a .env it may not read, or may not create, is said with E_ENV_FILE and the fix, not a bare EACCES', async () => {
    const svcAs = (args: string[]) => {
      const command = canDropPrivileges ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, SVC_BIN, ...args] : [process.execPath, SVC_BIN, ...args]
      return spawnSync(command[0]!, command.slice(1), { cwd: app.dir, env: svcEnv({ HOME: app.dir }), encoding: 'utf8' })
    }
    chmodSync(app.path('.env'), root ? 0o600 : 0o000)
    try {
      const unreadable = svcAs(['route:list'])
      expect(unreadable.status).toBe(1)
      expect(unreadable.stderr).toContain(`error [E_ENV_FILE]: Cannot read ${app.path('.env')}: EACCES`)
      expect(unreadable.stderr).toContain(`fix: give the user running svc read access to ${app.path('.env')}`)
    } finally {
      chmodSync(app.path('.env'), 0o644)
    }
    renameSync(app.path('.env'), app.path('env.saved'))
    if (!root) chmodSync(app.dir, 0o555)
    try {
      const uncreatable = svcAs(['serve', '--port', '0'])
      expect(uncreatable.status).toBe(1)
      expect(uncreatable.stderr).toContain(`error [E_ENV_FILE]: Cannot create ${app.path('.env')}: EACCES`)
      expect(uncreatable.stderr).toContain('fix: create it yourself (copy .env.example, then svc key:generate)')
    } finally {
      chmodSync(app.dir, 0o755)
      renameSync(app.path('env.saved'), app.path('.env'))
    }
  }, 60_000)
})
