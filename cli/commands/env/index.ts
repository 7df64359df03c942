import type { CommandLoaders } from '../../command/define.ts'

/** The environment: cache, check, switch. */
const commands = {
  'env:cache': () => import('./cache.ts'),
  'env:check': () => import('./check.ts'),
  'env:switch': () => import('./switch.ts'),
} satisfies CommandLoaders

export default commands
