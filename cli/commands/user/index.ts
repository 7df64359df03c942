import type { CommandLoaders } from '../../command/define.ts'

/** The `user` commands, loaded only when one runs. */
const commands = {
  'user:role': () => import('./role.ts'),
} satisfies CommandLoaders

export default commands
