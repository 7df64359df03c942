import type { CommandLoaders } from '../../command/define.ts'

/** Commands without a namespace of their own, loaded only when one runs. */
const commands = {
  list: () => import('./list.ts'),
  fix: () => import('./fix.ts'),
  lsp: () => import('./lsp.ts'),
  completion: () => import('./completion.ts'),
  tinker: () => import('./tinker.ts'),
  benchmark: () => import('./benchmark.ts'),
  down: () => import('./down.ts'),
  up: () => import('./up.ts'),
  live: () => import('./live.ts'),
  optimize: () => import('./optimize.ts'),
  doctor: () => import('./doctor.ts'),
  deploy: () => import('./deploy.ts'),
  start: () => import('./start.ts'),
} satisfies CommandLoaders

export default commands
