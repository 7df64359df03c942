/**
 * `svc env:switch` keeps the .env it replaces as `.env.backup-<UTC time>`: two
 * switches within one second used to write the same name, and the second copy
 * replaced the first backup (the .env it held was lost).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { backupEnvFile } from '../../cli/project/env-backup.ts'
import { tempDir } from '../helpers/app.ts'

const dirs: Array<{ remove(): void }> = []
afterEach(() => dirs.splice(0).forEach((dir) => dir.remove()))

describe('backupEnvFile', () => {
  it('keeps every backup made within one second under its own name', () => {
    const dir = tempDir('svc-env-backup-')
    dirs.push(dir)
    const envFile = join(dir.path, '.env')
    const second = new Date('2026-11-29T16:41:36.120Z')

    writeFileSync(envFile, 'JWT_SECRET=the-original\n')
    const first = backupEnvFile(dir.path, envFile, second)
    writeFileSync(envFile, 'A=1\n')
    const next = backupEnvFile(dir.path, envFile, new Date('2026-11-29T16:41:36.870Z'))
    const third = backupEnvFile(dir.path, envFile, second)

    expect([first, next, third].map((file) => basename(file))).toEqual([
      '.env.backup-20261129T164136Z',
      '.env.backup-20261129T164136Z-2',
      '.env.backup-20261129T164136Z-3',
    ])
    expect(readFileSync(first, 'utf8')).toBe('JWT_SECRET=the-original\n')
    expect(readFileSync(next, 'utf8')).toBe('A=1\n')
    expect(statSync(first).mode & 0o777).toBe(0o600)
  })
})
