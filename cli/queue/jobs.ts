/**
 * The jobs a worker can run: svc's own (`svc.send-mail`, queued listeners)
 * and every job exported by a file under the app's `app/jobs/` (any depth).
 * A worker looks each reserved job up here by name.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { isJobDefinition, jobRegistry, listenerJob, sendMailJob, type JobDefinition, type JobRegistry } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'
import { importWithJiti, type ImportFile } from '../project/import-file.ts'
import { missingPackageHint } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'

export const JOB_FOLDERS = ['app/jobs'] as const
const SOURCE = /\.(ts|mts|js|mjs)$/

/** svc's own jobs, known to every worker. */
export const BUILTIN_JOBS: readonly JobDefinition<never>[] = [sendMailJob as JobDefinition<never>, listenerJob as JobDefinition<never>]

export async function loadJobs(project: Project, importFile: ImportFile = importWithJiti): Promise<JobRegistry> {
  const found: JobDefinition<never>[] = [...BUILTIN_JOBS]
  for (const folder of JOB_FOLDERS) {
    for (const file of sourceFiles(join(project.appDir, folder))) {
      let module: Record<string, unknown>
      try {
        module = await importFile(file)
      } catch (error) {
        throw new CliError('E_APP_LOAD', `Cannot load the job file ${file}: ${(error as Error).message}`, { hint: missingPackageHint(project, error) ?? `fix ${file}`, cause: error })
      }
      for (const value of Object.values(module)) if (isJobDefinition(value)) found.push(value)
    }
  }
  try {
    return jobRegistry(found)
  } catch (error) {
    throw new CliError('E_JOB_NAME', (error as Error).message, { hint: 'give each defineJob() its own name' })
  }
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') && !/\.test\.[mc]?[jt]s$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}
