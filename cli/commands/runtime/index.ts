import type { CommandLoaders } from '../../command/define.ts'

/** The `runtime` commands, loaded only when one runs. */
const commands = {
  'runtime:prepare': () => import('./prepare.ts'),
} satisfies CommandLoaders

export default commands
