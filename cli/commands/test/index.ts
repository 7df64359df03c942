import type { CommandLoaders } from '../../command/define.ts'

/** The `test` commands, loaded only when one runs. */
const commands = {
  test: () => import('./test.ts'),
  'test:run': () => import('./run.ts'),
  'test:regression': () => import('./regression.ts'),
} satisfies CommandLoaders

export default commands
