import type { CommandLoaders } from '../../command/define.ts'

/** The `key` commands, loaded only when one runs. */
const commands = {
  'key:generate': () => import('./generate.ts'),
} satisfies CommandLoaders

export default commands
