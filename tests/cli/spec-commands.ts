/**
 * The command set of the specification (shared/SPEC.md, "Command-line
 * interface": the invocation line and every command table), by table, in the
 * spec's order. Checked in because the specification is not part of the
 * repository; tests/cli/spec-commands.test.ts holds svc to it.
 *
 * `why` is the spec's name for `debug:last` ("why (alias of debug:last)"), so
 * `debug:last` is the command and `why` an alias.
 */
export const SPEC_COMMANDS: Record<string, readonly string[]> = {
  Invocation: ['list'],
  Generators: [
    'make:crud', 'make:auth', 'make:model', 'make:controller', 'make:migration', 'make:service', 'make:repository', 'make:resource',
    'make:request', 'make:middleware', 'make:observer', 'make:rule', 'make:event', 'make:listener', 'make:job', 'make:mail', 'make:test',
    'make:factory', 'make:seeder', 'make:openapi', 'make:postman', 'make:lang', 'make:queue-table', 'make:idempotency-table',
    'make:apikey-table', 'make:apikey',
  ],
  Database: ['migrate', 'migrate:rollback', 'migrate:status', 'migrate:fresh', 'db:seed', 'db:show', 'db:why'],
  Testing: ['test', 'test:run', 'test:regression', 'api:test'],
  'Debug and logs': ['log:trace', 'trace:list', 'log:replay', 'log:export', 'log:tail', 'log:slow', 'log:stats', 'log:top', 'log:cleanup', 'api:why', 'debug:last', 'fix'],
  'Optimize, queue, server, system': [
    'optimize', 'config:cache', 'config:clear', 'env:cache', 'queue:work', 'queue:status', 'queue:flush', 'serve', 'live', 'start',
    'frankenphp:serve', 'new', 'new:project', 'key:generate', 'doctor', 'route:list', 'route:search', 'route:rules', 'deploy', 'down', 'up',
    'storage:link', 'tinker', 'rate:status', 'env:check', 'env:switch', 'benchmark', 'schedule:run',
  ],
}

/** The aliases the spec names, and the command each runs. */
export const SPEC_ALIASES: Record<string, string> = {
  t: 'api:test',
  replay: 'log:replay',
  why: 'debug:last',
}

/** The spec's "91 commands": `svc list --json` names at least this many (commands and aliases) once everything is built. */
export const SPEC_COMMAND_COUNT = 91
