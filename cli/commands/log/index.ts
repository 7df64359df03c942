import type { CommandLoaders } from '../../command/define.ts'

/** The `log` commands, loaded only when one runs. */
const commands = {
  'log:trace': () => import('./trace.ts'),
  'log:export': () => import('./export.ts'),
  'log:tail': () => import('./tail.ts'),
  'log:slow': () => import('./slow.ts'),
  'log:stats': () => import('./stats.ts'),
  'log:top': () => import('./top.ts'),
  'log:cleanup': () => import('./cleanup.ts'),
  'log:replay': () => import('./replay.ts'),
} satisfies CommandLoaders

export default commands
