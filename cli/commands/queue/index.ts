import type { CommandLoaders } from '../../command/define.ts'

/** The `queue` commands, loaded only when one runs. */
const commands = {
  'queue:work': () => import('./work.ts'),
  'queue:status': () => import('./status.ts'),
  'queue:flush': () => import('./flush.ts'),
  'queue:retry': () => import('./retry.ts'),
} satisfies CommandLoaders

export default commands
