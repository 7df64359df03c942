/**
 * Which tables the app's migrations create, read from their text
 * (`create table "people"`, `create table if not exists users`), so that
 * `make:migration add_email_to_person_table` can say that the app's table is
 * `people` before a migration fails on `no such table: person`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CliError } from '../output/cli-error.ts'
import { deriveNames } from './names.ts'

const CREATE_TABLE = /create\s+table\s+(?:if\s+not\s+exists\s+)?[`"[]?(\w+)/gi

export function createdTables(migrationsDir: string): Set<string> {
  const tables = new Set<string>()
  if (!existsSync(migrationsDir)) return tables
  for (const file of readdirSync(migrationsDir).filter((name) => /\.(ts|js|mjs)$/.test(name))) {
    for (const match of readFileSync(join(migrationsDir, file), 'utf8').matchAll(CREATE_TABLE)) tables.add(match[1]!.toLowerCase())
  }
  return tables
}

/**
 * Refuses (`E_BAD_NAME`) a migration that changes a table no migration creates when the plural of its name is one
 * that does (`person` for `people`, `category` for `categories`): the singular was typed for the table. A table the
 * migrations do not know at all (made by hand, another tool) is left alone.
 */
export function checkAlteredTable(migrationsDir: string, migration: string, table: string): void {
  const tables = createdTables(migrationsDir)
  const plural = deriveNames(table).table
  if (tables.has(table.toLowerCase()) || plural === table || !tables.has(plural)) return
  const fixed = migration.replace(new RegExp(`_${table}_table$`), `_${plural}_table`)
  throw new CliError('E_BAD_NAME', `${migration} changes the table ${table}, which no migration of the app creates; the app's table is ${plural}`, {
    hint: `svc make:migration ${fixed}`,
  })
}
