import type { CommandLoaders } from '../../command/define.ts'

/** The `schedule` commands, loaded only when one runs. */
const commands = {
  'schedule:run': () => import('./run.ts'),
  'schedule:list': () => import('./list.ts'),
  'schedule:work': () => import('./work.ts'),
} satisfies CommandLoaders

export default commands
