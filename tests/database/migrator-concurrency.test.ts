/**
 * Two processes running `migrate()` on one SQLite file at the same time (a
 * deploy on several hosts, a retried deploy), from the sources. The first
 * migration holds the write lock for a while, so the second runner always
 * meets it: it must wait, find the migrations applied, and report nothing to
 * do, never `table users already exists` (what it did when it read the
 * applied list before taking the lock). One test waits within the busy
 * timeout; the other with a busy timeout shorter than the hold, so the runner
 * gets SQLITE_BUSY and must try again.
 */
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/app.ts'
import { startReportingChild } from '../helpers/child-process.ts'

const RUNNER = join(import.meta.dirname, 'concurrent-migrator.ts')
const ALL = ['20260101000000_create_users_table', '20260102000000_add_email_to_users', '20260103000000_create_posts_table']

type Report = { ran: string[] } | { error: string }

function startRunner(file: string, busyTimeoutMs: number, holdMs: number) {
  return startReportingChild<Report>(['--import', 'jiti/register', RUNNER, file, String(busyTimeoutMs), String(holdMs)], 'runner')
}

async function appliedBatches(file: string): Promise<Record<string, number>> {
  const client = createClient({ url: `file:${file}` })
  try {
    const rows = (await client.execute('select name, batch from migrations order by name')).rows
    return Object.fromEntries(rows.map((row) => [String(row.name), Number(row.batch)]))
  } finally {
    client.close()
  }
}

describe('two processes migrating one file database at once', () => {
  let cleanup: (() => void) | undefined
  afterEach(() => cleanup?.())

  it.each([
    ['waits within the busy timeout', 5000],
    ['tries again after SQLITE_BUSY (busy timeout shorter than the other runner holds the lock)', 100],
  ])('%s: one runner applies every migration as one batch, the other finds nothing to do; neither fails', async (_, busyTimeoutMs) => {
    const dir = tempDir('svc-migrate-race-')
    cleanup = dir.remove
    const file = join(dir.path, 'database.sqlite')
    const a = startRunner(file, busyTimeoutMs, 1500)
    await a.ready // creates the file and the migrations table alone
    const b = startRunner(file, busyTimeoutMs, 1500)
    await b.ready
    a.go()
    b.go()
    const reports = await Promise.all([a.done, b.done])
    expect(reports.filter((report) => 'error' in report)).toEqual([])
    expect(reports.map((report) => ('ran' in report ? report.ran : [])).sort((x, y) => x.length - y.length)).toEqual([[], ALL])
    expect(await appliedBatches(file)).toEqual(Object.fromEntries(ALL.map((name) => [name, 1])))
  }, 30_000)
})
