import type { CommandLoaders } from '../../command/define.ts'

/** The `api` commands, loaded only when one runs. */
const commands = {
  'api:why': () => import('./why.ts'),
  'api:test': () => import('./test.ts'),
} satisfies CommandLoaders

export default commands
