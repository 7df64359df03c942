import type { CommandLoaders } from '../../command/define.ts'

/** The `migrate` commands, loaded only when one runs. */
const commands = {
  migrate: () => import('./run.ts'),
  'migrate:rollback': () => import('./rollback.ts'),
  'migrate:status': () => import('./status.ts'),
  'migrate:fresh': () => import('./fresh.ts'),
  'migrate:bundle': () => import('./bundle.ts'),
} satisfies CommandLoaders

export default commands
