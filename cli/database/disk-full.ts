/**
 * A full disk, as a command says it. SQLite answers `SQLITE_FULL: database or
 * disk is full` to whatever was writing, so the hint beside it named that
 * writer's usual suspect: "fix the migration", "check TRACE_DATABASE_URL".
 * Neither a migration nor a setting is wrong; the disk needs room.
 */
// Not the framework's index: the error printer (cli/output/print.ts) loads this, and `svc --version` must stay light.

/** SQLite's SQLITE_FULL, or the file system's ENOSPC, anywhere in the error's causes. */
export function isDiskFull(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && (code.startsWith('SQLITE_FULL') || code === 'ENOSPC')) return true
    if (/SQLITE_FULL|database or disk is full|ENOSPC/.test(cause.message)) return true
  }
  return false
}

/** What to do about a full disk holding `where` (a folder or a database file), then `retry`. */
export function diskFullHint(where: string, retry: string): string {
  return `the disk holding ${where} is full: free space there (svc log:cleanup --days N deletes old traces), then ${retry}`
}
