/**
 * A full disk is said as one, whatever was writing: SQLITE_FULL or ENOSPC,
 * anywhere in an error's causes, gets the "free space" fix (migrations, the
 * trace store and the database say it beside their own message; anything
 * else a command meets is E_DISK_FULL, not E_UNEXPECTED).
 */
import { describe, expect, it } from 'vitest'
import { diskFullHint, isDiskFull } from '../../cli/database/disk-full.ts'
import { describeFailure } from '../../cli/output/print.ts'

const coded = (message: string, code: string) => Object.assign(new Error(message), { code })

describe('a full disk', () => {
  it('is SQLITE_FULL or ENOSPC, by code or message, in the error or its causes', () => {
    expect(isDiskFull(coded('SQLITE_FULL: database or disk is full', 'SQLITE_FULL'))).toBe(true)
    expect(isDiskFull(coded("ENOSPC: no space left on device, write", 'ENOSPC'))).toBe(true)
    expect(isDiskFull(new Error('Migration x failed: SQLITE_FULL: database or disk is full'))).toBe(true)
    expect(isDiskFull(new Error('wrapped', { cause: coded('disk', 'SQLITE_FULL') }))).toBe(true)
    expect(isDiskFull(coded('SQLITE_ERROR: no such table: users', 'SQLITE_ERROR'))).toBe(false)
    expect(isDiskFull('SQLITE_FULL')).toBe(false)
  })

  it('a command that meets one says E_DISK_FULL with the fix', () => {
    expect(describeFailure(coded('SQLITE_FULL: database or disk is full', 'SQLITE_FULL'))).toEqual({
      code: 'E_DISK_FULL',
      message: 'SQLITE_FULL: database or disk is full',
      fix: 'free space on the disk holding storage/ (svc log:cleanup --days N deletes old traces), then run it again',
      exit_code: 1,
    })
    expect(diskFullHint('storage/traces.sqlite', 'start again')).toBe(
      'the disk holding storage/traces.sqlite is full: free space there (svc log:cleanup --days N deletes old traces), then start again',
    )
  })
})
