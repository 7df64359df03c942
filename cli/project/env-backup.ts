/**
 * The copy `svc env:switch` keeps of the `.env` it replaces: `.env.backup-<UTC time>`,
 * to the second. A second switch within the same second used to copy over the first
 * one's backup, so the `.env` that backup held was gone; a name that is taken gets
 * `-2`, `-3`... instead, and the copy never replaces a file.
 */
import { chmodSync, constants, copyFileSync } from 'node:fs'
import { join } from 'node:path'

/** Copies `envFile` to a new `.env.backup-<UTC time>[-n]` in `root` (mode 600) and returns its path. */
export function backupEnvFile(root: string, envFile: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
  for (let n = 1; ; n++) {
    const backup = join(root, `.env.backup-${stamp}${n === 1 ? '' : `-${n}`}`)
    try {
      copyFileSync(envFile, backup, constants.COPYFILE_EXCL)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue
      throw error
    }
    chmodSync(backup, 0o600)
    return backup
  }
}
