/** What `new` and `start` do once the answers are known: create the project, add the example resource, say what next. */
import { relative } from 'node:path'
import type { NewProjectJson } from '../../contract/index.ts'
import type { CommandIO } from '../../output/io.ts'
import { colors, printLine } from '../../output/print.ts'
import { createProject, type JwtAlgorithmChoice } from './create.ts'
import { addExampleResource, requireExampleGenerator } from './example-resource.ts'

export interface ProjectAnswers {
  /** The folder to create (its last part is the package name). */
  folder: string
  /** '' for the embedded SQLite file. */
  database: string
  jwt: JwtAlgorithmChoice
  /** A resource name for make:crud, or null. */
  example: string | null
}

export async function makeProject(answers: ProjectAnswers, options: { io: CommandIO; cwd: string; svc?: string }): Promise<NewProjectJson> {
  if (answers.example !== null) await requireExampleGenerator(answers.example)
  const created = await createProject({ folder: answers.folder, cwd: options.cwd, databaseUrl: answers.database, jwtAlgorithm: answers.jwt, svcSpec: options.svc })
  if (answers.example !== null) await addExampleResource(created.dir, answers.example, options.io)
  const where = relative(options.cwd, created.dir)
  return {
    name: created.name,
    path: created.dir,
    files: created.files,
    svc: created.svcSpec,
    database_url: answers.database,
    jwt_algorithm: answers.jwt,
    example: answers.example,
    next: [...(where === '' ? [] : [`cd ${where}`]), 'npm install', 'npm start'],
  }
}

export function printCreated(io: CommandIO, project: NewProjectJson): void {
  const color = colors(io)
  for (const file of project.files) printLine(io, `${color.green('Created')} ${file}`)
  printLine(io)
  printLine(io, `${color.bold(project.name)} is ready in ${project.path}${project.example ? `, with the example resource ${project.example}` : ''}. Next:`)
  printLine(io)
  for (const command of project.next) printLine(io, `  ${color.cyan(command)}`)
  printLine(io)
  printLine(io, color.dim('npm start serves http://127.0.0.1:8080 (PORT in .env); npm test and npm run typecheck pass as created. README.md has more.'))
  if (/^(libsql|https?|wss?):/.test(project.database_url)) printLine(io, color.yellow(`Put the database's token in .env: DATABASE_AUTH_TOKEN=...`))
}
