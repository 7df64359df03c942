/**
 * Every command: its name, group and one-line description, and how to load
 * it. Loading is lazy so that `svc --version` or `svc list` import no command.
 */
import type { CommandDef } from 'citty'

export interface CommandEntry {
  name: string
  group: string
  description: string
  aliases?: string[]
  load: () => Promise<CommandDef<any>>
}

const lazy = (load: () => Promise<{ default: CommandDef<any> }>) => () => load().then((module) => module.default)

export const commands: CommandEntry[] = [
  { name: 'list', group: 'General', description: 'List all commands, grouped', load: lazy(() => import('./commands/list.ts')) },
  { name: 'serve', group: 'Server', description: 'Serve the app over HTTP (development server)', load: lazy(() => import('./commands/serve.ts')) },
  { name: 'route:list', group: 'Routes', description: 'List routes with their middleware', load: lazy(() => import('./commands/route/list.ts')) },
  { name: 'migrate', group: 'Database', description: 'Run pending migrations', load: lazy(() => import('./commands/migrate/run.ts')) },
  { name: 'migrate:rollback', group: 'Database', description: 'Roll back the last batch of migrations', load: lazy(() => import('./commands/migrate/rollback.ts')) },
  { name: 'migrate:status', group: 'Database', description: 'Show which migrations ran', load: lazy(() => import('./commands/migrate/status.ts')) },
  { name: 'migrate:fresh', group: 'Database', description: 'Drop all tables and migrate again', load: lazy(() => import('./commands/migrate/fresh.ts')) },
  { name: 'log:trace', group: 'Debug and logs', description: 'Show one trace in full, or search traces (--path --status --ip --error --method --since --days --slow --limit)', load: lazy(() => import('./commands/log/trace.ts')) },
  { name: 'trace:list', group: 'Debug and logs', description: 'List recent traces, one line each', load: lazy(() => import('./commands/trace/list.ts')) },
  { name: 'log:export', group: 'Debug and logs', description: 'Export traces as JSON or a Postman collection', load: lazy(() => import('./commands/log/export.ts')) },
  { name: 'log:tail', group: 'Debug and logs', description: 'Print the latest traces and follow new ones (--type=all|error|slow, --lines)', load: lazy(() => import('./commands/log/tail.ts')) },
  { name: 'log:slow', group: 'Debug and logs', description: 'The slowest traces (--min=ms, --limit)', load: lazy(() => import('./commands/log/slow.ts')) },
  { name: 'log:stats', group: 'Debug and logs', description: 'Counts by status class, error rate, latency percentiles, dropped traces (--days)', load: lazy(() => import('./commands/log/stats.ts')) },
  { name: 'log:top', group: 'Debug and logs', description: 'Slowest endpoints by route, with counts and p95', load: lazy(() => import('./commands/log/top.ts')) },
  { name: 'log:cleanup', group: 'Debug and logs', description: 'Delete traces older than N days (--days, --dry-run)', load: lazy(() => import('./commands/log/cleanup.ts')) },
  { name: 'log:replay', group: 'Debug and logs', description: 'Replay a traced request against the current code (dry run in production; --diff, --set, --as, --format, --test)', aliases: ['replay'], load: lazy(() => import('./commands/log/replay.ts')) },
  { name: 'api:why', group: 'Debug and logs', description: 'Why a request fails: which route matches (and why others do not), which middleware refused it (--id, --fix, --diff, --force, --edit)', load: lazy(() => import('./commands/api/why.ts')) },
  { name: 'debug:last', group: 'Debug and logs', description: 'The same analysis for the last failed request', aliases: ['why'], load: lazy(() => import('./commands/debug/last.ts')) },
  { name: 'fix', group: 'Debug and logs', description: 'Replay a failed trace against the current code; the exit code says whether it now succeeds', load: lazy(() => import('./commands/fix.ts')) },
  { name: 'db:why', group: 'Database', description: 'The recorded statements that touched a row, newest first: db:why <table> <id>', load: lazy(() => import('./commands/db/why.ts')) },
  { name: 'test:regression', group: 'Testing', description: 'Replay recorded traces and report changed responses (--limit, --all); exits 1 on any change', load: lazy(() => import('./commands/test/regression.ts')) },
  { name: 'key:generate', group: 'Security', description: 'Generate a JWT secret into .env (--rs256: an RS256 key pair in storage/keys)', load: lazy(() => import('./commands/key/generate.ts')) },
  { name: 'lsp', group: 'Editor', description: 'Language server for editors (svc lsp --stdio; the VS Code extension starts it)', load: lazy(() => import('./commands/lsp.ts')) },
  { name: 'make:auth', group: 'Generators', description: 'Auth migrations: users, refresh tokens, one-time tokens, security events, rate limits', load: lazy(() => import('./commands/make/auth.ts')) },
  { name: 'make:apikey-table', group: 'Generators', description: 'Migration of the api_keys table (scoped API keys)', load: lazy(() => import('./commands/make/apikey-table.ts')) },
  { name: 'make:apikey', group: 'Generators', description: 'Create a scoped API key: make:apikey <name> <scopes> <days>', load: lazy(() => import('./commands/make/apikey.ts')) },
]

export function findCommand(name: string): CommandEntry | undefined {
  return commands.find((command) => command.name === name || command.aliases?.includes(name))
}

/** Known names closest to a mistyped one (edit distance, then shared prefix). */
export function closestCommands(name: string, limit = 3): string[] {
  const names = commands.flatMap((command) => [command.name, ...(command.aliases ?? [])])
  return names
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .filter(({ candidate, distance }) => distance <= Math.max(2, Math.floor(candidate.length / 3)) || candidate.startsWith(name))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate)
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
