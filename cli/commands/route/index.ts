import type { CommandLoaders } from '../../command/define.ts'

/** The `route` commands, loaded only when one runs. */
const commands = {
  'route:list': () => import('./list.ts'),
  'route:search': () => import('./search.ts'),
  'route:rules': () => import('./rules.ts'),
} satisfies CommandLoaders

export default commands
