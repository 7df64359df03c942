import type { CommandLoaders } from '../../command/define.ts'

/** `new` (alias `new:project`), loaded only when it runs. */
const commands = {
  new: () => import('./project.ts'),
} satisfies CommandLoaders

export default commands
