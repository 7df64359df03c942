/**
 * Writes framework-defined migrations (auth, api keys) as files of the app, once. With `now`, a new file is
 * dated like every generated migration (now, or one second after the app's latest) instead of by the source's
 * fixed name, so that it sorts after the migrations the app already has.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { migrationTimestamp } from '../generators/migration-timestamp.ts'
import { renderMigrationFile, type MigrationSource } from './migration-file.ts'
import type { MakeMigrationsJson } from '../contract/index.ts'
import { migrationsDir } from './migrations.ts'
import type { Project } from './project.ts'

export function writeMigrationFiles(project: Project, sources: readonly MigrationSource[], command: string, force: boolean, now?: Date): MakeMigrationsJson {
  const dir = migrationsDir(project)
  mkdirSync(dir, { recursive: true })
  const existing = readdirSync(dir)
  const result: MakeMigrationsJson = { written: [], skipped: [] }
  for (const source of sources) {
    const suffix = source.name.replace(/^\d+_/, '')
    const present = existing.find((file) => file.replace(/^\d+_/, '').replace(/\.(ts|js|mjs)$/, '') === suffix)
    const target = join(dir, present ?? `${now === undefined ? source.name : `${migrationTimestamp(dir, now)}_${suffix}`}.ts`)
    if (present !== undefined && !force) {
      result.skipped.push(relative(project.root, target))
      continue
    }
    if (!existsSync(target) || force) writeFileSync(target, renderMigrationFile(source, command))
    result.written.push(relative(project.root, target))
  }
  return result
}
