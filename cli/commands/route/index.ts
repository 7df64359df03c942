import type { CommandLoaders } from '../../command/define.ts'

/** The `route` commands, loaded only when one runs. */
const commands = {
  'route:list': () => import('./list.ts'),
} satisfies CommandLoaders

export default commands
