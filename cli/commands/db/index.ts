import type { CommandLoaders } from '../../command/define.ts'

/** The `db` commands, loaded only when one runs. */
const commands = {
  'db:why': () => import('./why.ts'),
  'db:seed': () => import('./seed.ts'),
  'db:show': () => import('./show.ts'),
} satisfies CommandLoaders

export default commands
