import type { CommandLoaders } from '../../command/define.ts'

/** The `storage` commands, loaded only when one runs. */
const commands = {
  'storage:link': () => import('./link.ts'),
} satisfies CommandLoaders

export default commands
