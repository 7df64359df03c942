/**
 * Every command folder, loaded lazily (nuxt/cli style): `svc --version`
 * imports none, and running a command imports only its folder's map and its
 * own module. A command lives in the folder of its namespace (`migrate:*` and
 * `migrate` in migrate/); one without a namespace of its own in general/.
 */
export const commandFolders = {
  api: () => import('./api/index.ts'),
  auth: () => import('./auth/index.ts'),
  config: () => import('./config/index.ts'),
  db: () => import('./db/index.ts'),
  debug: () => import('./debug/index.ts'),
  env: () => import('./env/index.ts'),
  general: () => import('./general/index.ts'),
  key: () => import('./key/index.ts'),
  log: () => import('./log/index.ts'),
  make: () => import('./make/index.ts'),
  migrate: () => import('./migrate/index.ts'),
  rate: () => import('./rate/index.ts'),
  new: () => import('./new/index.ts'),
  queue: () => import('./queue/index.ts'),
  route: () => import('./route/index.ts'),
  runtime: () => import('./runtime/index.ts'),
  schedule: () => import('./schedule/index.ts'),
  serve: () => import('./serve/index.ts'),
  storage: () => import('./storage/index.ts'),
  test: () => import('./test/index.ts'),
  trace: () => import('./trace/index.ts'),
  user: () => import('./user/index.ts'),
} as const
