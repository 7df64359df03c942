import type { CommandLoaders } from '../../command/define.ts'

/** The `trace` commands, loaded only when one runs. */
const commands = {
  'trace:list': () => import('./list.ts'),
  'trace:users': () => import('./users.ts'),
} satisfies CommandLoaders

export default commands
