import type { CommandLoaders } from '../../command/define.ts'

/** The `make` commands, loaded only when one runs. */
const commands = {
  'make:auth': () => import('./auth.ts'),
  'make:apikey-table': () => import('./apikey-table.ts'),
  'make:apikey': () => import('./apikey.ts'),
  'make:queue-table': () => import('./queue-table.ts'),
  'make:idempotency-table': () => import('./idempotency-table.ts'),
} satisfies CommandLoaders

export default commands
