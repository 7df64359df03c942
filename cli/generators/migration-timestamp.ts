/** The prefix of a new migration file: the one rule every command that writes migrations follows. */
import { existsSync, readdirSync } from 'node:fs'
import { basename } from 'node:path'

/**
 * `20260115103000` for now, or one second after the app's latest migration
 * when that is not earlier: migrations run in file-name order, and one
 * written in the same second as another must still run after it.
 * `planned`: files about to be written there (paths), counted as if they were.
 */
export function migrationTimestamp(dir: string, now: Date, planned: readonly string[] = []): string {
  const latest = [...(existsSync(dir) ? readdirSync(dir) : []), ...planned.map((path) => basename(path))]
        .map((file) => /^(\d{14})_/.exec(file)?.[1])
        .filter((prefix): prefix is string => prefix !== undefined)
        .sort()
        .at(-1)
  let at = now
  if (latest !== undefined) {
    const [, year, month, day, hour, minute, second] = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(latest)!
    const after = new Date(Date.UTC(+year!, +month! - 1, +day!, +hour!, +minute!, +second! + 1))
    if (after > at) at = after
  }
  return at.toISOString().replace(/\D/g, '').slice(0, 14)
}
