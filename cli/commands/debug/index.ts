import type { CommandLoaders } from '../../command/define.ts'

/** The `debug` commands, loaded only when one runs. */
const commands = {
  'debug:last': () => import('./last.ts'),
} satisfies CommandLoaders

export default commands
