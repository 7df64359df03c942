import type { CommandLoaders } from '../../command/define.ts'

/** The `make` commands, loaded only when one runs. */
const commands = {
  'make:auth': () => import('./auth.ts'),
  'make:apikey-table': () => import('./apikey-table.ts'),
  'make:apikey': () => import('./apikey.ts'),
  'make:openapi': () => import('./openapi.ts'),
  'make:postman': () => import('./postman.ts'),
  'make:crud': () => import('./crud.ts'),
  'make:model': () => import('./model.ts'),
  'make:controller': () => import('./controller.ts'),
  'make:migration': () => import('./migration.ts'),
  'make:service': () => import('./service.ts'),
  'make:repository': () => import('./repository.ts'),
  'make:resource': () => import('./resource.ts'),
  'make:request': () => import('./request.ts'),
  'make:middleware': () => import('./middleware.ts'),
  'make:observer': () => import('./observer.ts'),
  'make:rule': () => import('./rule.ts'),
  'make:event': () => import('./event.ts'),
  'make:listener': () => import('./listener.ts'),
  'make:test': () => import('./test.ts'),
  'make:factory': () => import('./factory.ts'),
  'make:seeder': () => import('./seeder.ts'),
  'make:lang': () => import('./lang.ts'),
  'make:job': () => import('./job.ts'),
  'make:mail': () => import('./mail.ts'),
  'make:queue-table': () => import('./queue-table.ts'),
  'make:idempotency-table': () => import('./idempotency-table.ts'),
} satisfies CommandLoaders

export default commands
