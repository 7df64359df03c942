/** What `new` and `start` do once the answers are known: create the project, add the example resource, say what next. */
import { relative } from 'node:path'
import type { MakeJson, NewProjectJson } from '../../contract/index.ts'
import type { CommandIO } from '../../output/io.ts'
import { CliError } from '../../output/cli-error.ts'
import { colors, printLine } from '../../output/print.ts'
import { createProject, type JwtAlgorithmChoice } from './create.ts'
import { addExampleResource, checkResourceName } from './example-resource.ts'

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
  const badExample = answers.example === null ? undefined : checkResourceName(answers.example)
  if (badExample !== undefined) throw new CliError('E_BAD_OPTION', `--example=${answers.example}: ${badExample}`)
  // The example is made before the project is moved into place: a name make:crud refuses there (User: make:auth's
  // table; Greeting: the scaffold's routes) then leaves no project without its example.
  const made: { example?: MakeJson } = {}
  const exampleName = answers.example
  const created = await createProject({
    folder: answers.folder,
    cwd: options.cwd,
    databaseUrl: answers.database,
    jwtAlgorithm: answers.jwt,
    svcSpec: options.svc,
    finish: exampleName === null ? undefined : async (staging) => {
      made.example = await addExampleResource(staging, exampleName, options.io)
    },
  })
  const example = made.example ?? null
  const where = relative(options.cwd, created.dir)
  return {
    name: created.name,
    path: created.dir,
    files: [...created.files, ...(example?.written ?? [])],
    edits: example?.edits ?? [],
    svc: created.svcSpec,
    database_url: answers.database,
    jwt_algorithm: answers.jwt,
    example: answers.example,
    // The example's sample rows: db:seed needs the tables, so it comes after migrate (npm start migrates too).
    next: [...(where === '' ? [] : [`cd ${where}`]), 'npm install', ...(example === null ? [] : ['npx svc migrate', 'npx svc db:seed']), 'npm start'],
  }
}

export function printCreated(io: CommandIO, project: NewProjectJson): void {
  const color = colors(io)
  for (const file of project.files) printLine(io, `${color.green('Created')} ${file}`)
  for (const edit of project.edits) {
    if (edit.status === 'manual') printLine(io, `${color.yellow('Add by hand')} to ${edit.path} (${edit.what}; ${edit.reason ?? 'its shape was not recognised'}):\n${(edit.lines ?? []).map((line) => `  ${line}`).join('\n')}`)
    else printLine(io, `${color.green('Edited')} ${edit.path} (${edit.what})`)
  }
  printLine(io)
  printLine(io, `${color.bold(project.name)} is ready in ${project.path}${project.example ? `, with the example resource ${project.example}` : ''}. Next:`)
  printLine(io)
  for (const command of project.next) printLine(io, `  ${color.cyan(command)}`)
  printLine(io)
  printLine(io, color.dim('npm start serves http://127.0.0.1:8080 (PORT in .env); npm test and npm run typecheck pass as created. README.md has more.'))
  if (/^(libsql|https?|wss?):/.test(project.database_url)) printLine(io, color.yellow(`Put the database's token in .env: DATABASE_AUTH_TOKEN=...`))
}
