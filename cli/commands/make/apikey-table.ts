import { API_KEYS_MIGRATION_SOURCE } from '../../project/migration-file.ts'
import { migrationTableCommand } from '../../project/migration-command.ts'

/** Writes the migration of the `api_keys` table (scoped keys for `apikey:<scope>`). */
export default migrationTableCommand({
  name: 'make:apikey-table',
  description: 'Migration of the api_keys table (scoped API keys)',
  sources: [API_KEYS_MIGRATION_SOURCE],
  next: 'svc migrate, then svc make:apikey <name> <scopes> <days>',
})
