import type { CommandLoaders } from '../../command/define.ts'

/** The servers: development (serve) and production (serve:prod, alias frankenphp:serve). */
const commands = {
  serve: () => import('./serve.ts'),
  'serve:prod': () => import('./prod.ts'),
} satisfies CommandLoaders

export default commands
