import { QUEUE_MIGRATION_SOURCE } from '../../../framework/queue/schema.ts'
import { migrationTableCommand } from '../../project/migration-command.ts'

/** Writes the migration of the database queue driver's tables (`jobs`, `failed_jobs`). */
export default migrationTableCommand({
  name: 'make:queue-table',
  description: 'Migration of the jobs and failed_jobs tables (database queue driver)',
  sources: [QUEUE_MIGRATION_SOURCE],
  next: 'svc migrate, then svc queue:work',
})
