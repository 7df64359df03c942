import type { CommandLoaders } from '../../command/define.ts'

/** The `auth` commands, loaded only when one runs. */
const commands = {
  'auth:token': () => import('./token.ts'),
} satisfies CommandLoaders

export default commands
