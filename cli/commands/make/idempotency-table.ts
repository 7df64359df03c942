import { IDEMPOTENCY_MIGRATION_SOURCE } from '../../../framework/idempotency/schema.ts'
import { migrationTableCommand } from '../../project/migration-command.ts'

/** Writes the migration of the `idempotency_keys` table (the `idempotent` middleware). */
export default migrationTableCommand({
  name: 'make:idempotency-table',
  description: 'Migration of the idempotency_keys table (the idempotent middleware)',
  sources: [IDEMPOTENCY_MIGRATION_SOURCE],
  next: "svc migrate, then add 'idempotent' to a POST route's middleware (after 'auth')",
})
