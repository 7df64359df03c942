/**
 * A copy of the blog app with the queue tables and a few jobs, for the queue
 * CLI tests: `record` writes one row per run into `runs` (what ran, where,
 * which attempt, started and finished), sleeping or failing when its payload
 * asks. The tests dispatch through the framework's own driver on the app's
 * database file, as the app would.
 */
import { writeFileSync } from 'node:fs'
import { QUEUE_MIGRATION_SOURCE } from '../../framework/queue/schema.ts'
import { renderMigrationFile } from '../../cli/project/migration-file.ts'
import { importNatively } from '../../cli/project/import-file.ts'
import { loadApp, type LoadedApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'

export const JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long'

export const RECORD_JOB = `import { defineJob, PermanentJobError } from 'svc'

export interface RecordPayload {
  key: string
  sleepMs?: number
  fail?: 'always' | 'once' | 'permanent'
}

/** One row per run in \`runs\`: what ran, in which process, which attempt, when it started and finished. */
export const record = defineJob('record', {
  attempts: 3,
  backoff: { base: 0 },
  async handle(payload: RecordPayload, { db, job, signal }) {
    const started = Date.now()
    if (!payload.sleepMs && !payload.fail) {
      // One write for a quick job: the race test runs thousands.
      await db!.execute('insert into runs (job_key, pid, attempt, started_at, finished_at) values (?, ?, ?, ?, ?)', [payload.key, process.pid, job.attempt, started, started])
      return
    }
    const run = await db!.first<{ id: number }>(
      'insert into runs (job_key, pid, attempt, started_at) values (?, ?, ?, ?) returning id',
      [payload.key, process.pid, job.attempt, started],
    )
    if (payload.sleepMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, payload.sleepMs)
        signal.addEventListener('abort', () => { clearTimeout(timer); resolve() })
      })
    }
    if (payload.fail === 'permanent') throw new PermanentJobError('never works')
    if (payload.fail === 'always' || (payload.fail === 'once' && job.attempt === 1)) throw new Error(\`failed \${payload.key} on attempt \${job.attempt}\`)
    await db!.execute('update runs set finished_at = ? where id = ?', [Date.now(), run!.id])
  },
})
`

const RUNS_MIGRATION = `import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(\`create table runs (
    id integer primary key autoincrement,
    job_key text not null,
    pid integer not null,
    attempt integer not null,
    started_at integer not null,
    finished_at integer
  )\`)
}

export async function down(db: Database): Promise<void> {
  await db.execute('drop table runs')
}
`

/** The blog copy with `.env`, the queue tables, `runs` and the record job, migrated. */
export async function queueApp(env: Record<string, string> = {}): Promise<AppCopy> {
  const app = copyExampleApp('blog')
  writeFileSync(app.path('.env'), `${Object.entries({ JWT_SECRET, ...env }).map(([key, value]) => `${key}=${value}`).join('\n')}\n`)
  app.write(`database/migrations/${QUEUE_MIGRATION_SOURCE.name}.ts`, renderMigrationFile(QUEUE_MIGRATION_SOURCE, 'make:queue-table'))
  app.write('database/migrations/20990101000000_create_runs_table.ts', RUNS_MIGRATION)
  app.write('app/jobs/record.ts', RECORD_JOB)
  const migrated = await runSvc(['migrate'], { cwd: app.dir })
  if (migrated.exitCode !== 0) throw new Error(`migrate failed: ${migrated.stderr}`)
  return app
}

/**
 * The copy loaded in this process as the CLI loads it (tracing off), with
 * `env` over the process's own, handed to `work` and closed afterwards even
 * when `work` throws, so that no database handle or timer outlives a test.
 */
export async function withLoadedApp<T>(app: AppCopy, env: Record<string, string>, work: (loaded: LoadedApp) => Promise<T>): Promise<T> {
  const loaded = await loadApp(findProject(app.dir, { ...process.env, ...env }), { importFile: importNatively, trace: false })
  try {
    return await work(loaded)
  } finally {
    await loaded.close()
  }
}
