/**
 * The text of a migration file (`database/migrations/<name>.ts`) for one of
 * the framework's migration sources (the auth tables, api keys): what
 * `make:auth` and `make:apikey-table` write into an app.
 */
import type { MigrationSource } from '../../framework/auth/schema.ts'

export type { MigrationSource }
export { AUTH_MIGRATION_SOURCES, API_KEYS_MIGRATION_SOURCE } from '../../framework/auth/schema.ts'

export function renderMigrationFile(source: MigrationSource, command: string): string {
  const statements = (list: string[]) => list.map((sql) => `  await db.execute(\`${sql}\`)`).join('\n')
  return `/** Written by \`svc ${command}\`: ${source.description}. */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
${statements(source.up)}
}

export async function down(db: Database): Promise<void> {
${statements(source.down)}
}
`
}
