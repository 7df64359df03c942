/**
 * A fresh clone has no `.env` (it is not committed): the first start makes
 * it from `.env.example` with a fresh JWT_SECRET, outside production, and
 * says so. `svc serve` (npm start) and `svc runtime:prepare` (the start:deno
 * and start:bun scripts of a project) make it the same way.
 */
import { existsSync } from 'node:fs'
import { ensureEnvFile } from '../../framework/node/index.ts'
import type { CommandIO } from '../output/io.ts'
import { printNote } from '../output/print.ts'
import { envFileError, isFileAccessError } from './load-app.ts'
import type { Project } from './project.ts'

export function createEnvFileIfMissing(project: Project, io: CommandIO): void {
  if (existsSync(project.envFile) || project.env.APP_ENV === 'production') return
  let created: boolean
  try {
    created = ensureEnvFile(project.envFile, project.envExampleFile)
  } catch (error) {
    throw isFileAccessError(error) ? envFileError(project, 'create', error) : error
  }
  if (created) printNote(io, `Created ${project.envFile} with a fresh JWT_SECRET (development settings).`)
}
