/**
 * svc's own tables, and the command that writes each one's migration into the
 * app: make:auth's users and tokens, the queue's, the idempotency keys, the
 * API keys. svc's auth, queue and middleware read their columns, so a table
 * of the same name made another way breaks them.
 */
import { IDEMPOTENCY_MIGRATION_SOURCE } from '../../framework/idempotency/schema.ts'
import { QUEUE_MIGRATION_SOURCE } from '../../framework/queue/schema.ts'
import { API_KEYS_MIGRATION_SOURCE, AUTH_MIGRATION_SOURCES, type MigrationSource } from './migration-file.ts'

/** The commands that write the migrations of svc's own tables (a queued listener needs jobs without the app naming it). */
export const FRAMEWORK_TABLES: ReadonlyArray<readonly [command: string, sources: readonly MigrationSource[]]> = [
  ['make:auth', AUTH_MIGRATION_SOURCES],
  ['make:apikey-table', [API_KEYS_MIGRATION_SOURCE]],
  ['make:queue-table', [QUEUE_MIGRATION_SOURCE]],
  ['make:idempotency-table', [IDEMPOTENCY_MIGRATION_SOURCE]],
]

/** The tables `create table` statements in this text create, their quotes taken off. */
export function tablesCreatedBy(text: string): string[] {
  return [...text.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?["`[]?(\w+)["`\]]?/gi)].map((match) => match[1]!)
}

/** The command that writes the migration of `table` when it is one of svc's own (`users`: make:auth), else undefined. */
export function frameworkTableCommand(table: string): string | undefined {
  const name = table.toLowerCase()
  return FRAMEWORK_TABLES.find(([, sources]) => sources.some((source) => source.up.some((sql) => tablesCreatedBy(sql).some((created) => created.toLowerCase() === name))))?.[0]
}
