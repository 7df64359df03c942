import type { CommandLoaders } from '../../command/define.ts'

/** Commands without a namespace of their own, loaded only when one runs. */
const commands = {
  list: () => import('./list.ts'),
  serve: () => import('./serve.ts'),
  fix: () => import('./fix.ts'),
  lsp: () => import('./lsp.ts'),
  start: () => import('./start.ts'),
} satisfies CommandLoaders

export default commands
