/**
 * A local database file svc may read but not write. SQLite opens such a
 * file read-only without a word, and every write then fails with
 * SQLITE_READONLY: `svc serve` started on it and answered 500 to every
 * write. Where its folder cannot be written either (a read-only volume),
 * opening fails with SQLITE_CANTOPEN, which said to check DATABASE_URL.
 * `svc serve` tries a write (a transaction it rolls back) before it serves,
 * and says which file and what to do.
 */
import { dirname } from 'node:path'
import type { Database } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'

/** SQLite's (or the file system's) refusal to write a database file or its folder, anywhere in the cause chain. */
export function isReadOnlyStorage(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || READ_ONLY_ERRNO.has(code))) return true
    if (/SQLITE_READONLY|SQLITE_CANTOPEN|readonly database|unable to open database file|EROFS|EACCES|EPERM/.test(cause.message)) return true
    // libSQL's own wording when it cannot open a local file at all: SQLite's code 14 (SQLITE_CANTOPEN).
    if (/Unable to open connection to local database .*: 14\b/.test(cause.message)) return true
  }
  return false
}

const READ_ONLY_ERRNO = new Set(['EROFS', 'EACCES', 'EPERM'])

/**
 * The refusal to serve from a database file that cannot be written: `file` is its path, `error` SQLite's.
 * @example throw readOnlyDatabaseError('storage/database.sqlite', error)
 */
export function readOnlyDatabaseError(file: string, error: unknown): CliError {
  const folder = dirname(file)
  const user = typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : ''
  return new CliError('E_STORAGE_READONLY', `Cannot write the database ${file}: ${(error as Error).message}`, {
    hint:
      `give the user running svc${user} write access to ${file} and its folder ${folder} (SQLite writes its -wal and -shm files beside it), ` +
      `(chown -R <user> ${folder}), or mount the volume read-write; svc doctor checks storage`,
    cause: error,
  })
}

/** Resolves when a write to `db` would be accepted; rejects with SQLite's error otherwise. Writes nothing. */
export async function tryWrite(db: Database): Promise<void> {
  // SQLite refuses a read-only file only at a statement that writes: one is run and rolled back.
  const rolledBack = new Error('rolled back')
  try {
    await db.transaction(async (tx) => {
      await tx.execute('create table svc_write_probe (x)')
      throw rolledBack
    })
  } catch (error) {
    if (error !== rolledBack) throw error
  }
}
