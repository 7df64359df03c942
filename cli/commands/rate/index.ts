import type { CommandLoaders } from '../../command/define.ts'

/** The `rate` commands, loaded only when one runs. */
const commands = {
  'rate:status': () => import('./status.ts'),
} satisfies CommandLoaders

export default commands
