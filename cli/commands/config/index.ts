import type { CommandLoaders } from '../../command/define.ts'

/** The configuration cache. */
const commands = {
  'config:cache': () => import('./cache.ts'),
  'config:clear': () => import('./clear.ts'),
} satisfies CommandLoaders

export default commands
