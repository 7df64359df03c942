/**
 * `svc start`'s questions (@clack/prompts): project name, database URL, JWT
 * algorithm, example resource (make:crud). Each has an option (args.ts); an answered
 * option is not asked. `--yes` takes the defaults of the rest. Without a
 * terminal (or with `--json`) nothing is asked: every question must then be
 * answered by an option or `--yes`, or the command says which are missing.
 */
import type { Readable, Writable } from 'node:stream'
import { CliError } from '../../output/cli-error.ts'
import type { CommandIO } from '../../output/io.ts'
import { checkDatabaseUrl, checkProjectTarget, type JwtAlgorithmChoice } from './create.ts'
import { checkResourceName } from './example-resource.ts'
import type { NewProjectJson } from '../../contract/index.ts'
import type { ProjectAnswers } from './make-project.ts'

export interface GivenAnswers {
  name: string | undefined
  database: string | undefined
  jwt: JwtAlgorithmChoice | undefined
  /** A resource name, `none`, or undefined. */
  example: string | undefined
}

export const DEFAULT_NAME = 'my-api'
const DEFAULT_EXAMPLE = 'Post'

/** The options that answer each question, in the order they are asked. */
const QUESTION_FLAGS = {
  name: '--name=<name>',
  database: '--database=<url> (empty: the embedded file)',
  jwt: '--jwt=HS256|RS256',
  example: '--example=<Name>|none',
} as const

export interface WizardOptions {
  io: CommandIO
  /** Where the project folder goes. */
  cwd: string
  yes: boolean
  /** Why no question may be asked (`stdin is not a terminal`, `--json`); undefined when they may. */
  cannotAsk: string | undefined
}

/** The answers, and whether any question was asked (the wizard then also says goodbye: printWizardDone). */
export async function resolveAnswers(given: GivenAnswers, options: WizardOptions): Promise<{ answers: ProjectAnswers; asked: boolean }> {
  checkGiven(given, options.cwd)
  const unanswered = (Object.keys(QUESTION_FLAGS) as Array<keyof GivenAnswers>).filter((key) => given[key] === undefined)
  if (unanswered.length > 0 && !options.yes && options.cannotAsk !== undefined) {
    throw new CliError('E_NEEDS_ANSWERS', `svc start cannot ask its questions (${options.cannotAsk}). Missing: ${unanswered.map((key) => QUESTION_FLAGS[key]).join(' ')}`, {
      hint: `answer with those options, or add --yes to take the defaults (name ${DEFAULT_NAME}, the embedded database, HS256, the example resource ${DEFAULT_EXAMPLE})`,
    })
  }
  const defaults: ProjectAnswers = {
    folder: given.name ?? DEFAULT_NAME,
    database: given.database ?? '',
    jwt: given.jwt ?? 'HS256',
    example: given.example !== undefined ? exampleOf(given.example) : DEFAULT_EXAMPLE,
  }
  if (options.yes || unanswered.length === 0) {
    if (given.name === undefined) checkProjectTarget({ folder: defaults.folder, cwd: options.cwd })
    return { answers: defaults, asked: false }
  }
  return { answers: await ask(unanswered, defaults, options), asked: true }
}

/** Options given with bad values fail before any question is asked. */
function checkGiven(given: GivenAnswers, cwd: string): void {
  if (given.name !== undefined) checkProjectTarget({ folder: given.name, cwd })
  const badUrl = given.database === undefined ? undefined : checkDatabaseUrl(given.database)
  if (badUrl !== undefined) throw new CliError('E_BAD_OPTION', `--database=${given.database}: ${badUrl}`)
  const example = given.example === undefined ? null : exampleOf(given.example)
  const badExample = example === null ? undefined : checkResourceName(example)
  if (badExample !== undefined) throw new CliError('E_BAD_OPTION', `--example=${example}: ${badExample}`)
}

function exampleOf(value: string): string | null {
  return value === 'none' || value === '' ? null : value
}

async function ask(unanswered: Array<keyof GivenAnswers>, defaults: ProjectAnswers, options: WizardOptions): Promise<ProjectAnswers> {
  // Loaded only here: a scripted run (--yes, options) never needs the prompts library.
  const prompts = await import('@clack/prompts')
  const streams = promptStreams(options.io)
  const answered = <T>(value: T): Exclude<T, symbol> => {
    if (prompts.isCancel(value)) {
      prompts.cancel('Cancelled: nothing was created.', streams)
      throw new CliError('E_CANCELLED', 'svc start was cancelled; nothing was created', { exitCode: 130 })
    }
    return value as Exclude<T, symbol>
  }
  const answers = { ...defaults }
  prompts.intro('svc start: a new project', streams)
  if (unanswered.includes('name')) {
    answers.folder = answered(
      await prompts.text({
        ...streams,
        message: 'Project name (its folder)',
        placeholder: DEFAULT_NAME,
        defaultValue: DEFAULT_NAME,
        validate: (value) => problem(() => checkProjectTarget({ folder: value || DEFAULT_NAME, cwd: options.cwd })),
      }),
    )
  }
  if (unanswered.includes('database')) {
    answers.database = answered(
      await prompts.text({
        ...streams,
        message: 'Database URL',
        placeholder: 'empty: the embedded SQLite file storage/database.sqlite',
        defaultValue: '',
        validate: (value) => checkDatabaseUrl(value ?? ''),
      }),
    )
  }
  if (unanswered.includes('jwt')) {
    answers.jwt = answered(
      await prompts.select<JwtAlgorithmChoice>({
        ...streams,
        message: 'JWT signing algorithm',
        initialValue: 'HS256',
        options: [
          { value: 'HS256', label: 'HS256', hint: 'one secret in .env signs and verifies' },
          { value: 'RS256', label: 'RS256', hint: 'a key pair in storage/keys/; others can verify with the public key' },
        ],
      }),
    )
  }
  if (unanswered.includes('example')) {
    const wanted = answered(await prompts.confirm({ ...streams, message: 'Add an example resource (make:crud: model, migration, controller, routes, tests, sample rows)?', initialValue: true }))
    answers.example = wanted
      ? answered(
          await prompts.text({
            ...streams,
            message: 'Its name',
            placeholder: DEFAULT_EXAMPLE,
            defaultValue: DEFAULT_EXAMPLE,
            validate: (value) => checkResourceName(value || DEFAULT_EXAMPLE),
          }),
        )
      : null
  }
  return answers
}

/** A check that throws a CliError, as a prompt's validation message. */
function problem(check: () => unknown): string | undefined {
  try {
    check()
    return undefined
  } catch (error) {
    if (error instanceof CliError) return error.message
    throw error
  }
}

/** The wizard's last words: the next commands, in the prompts' frame. */
export async function printWizardDone(project: NewProjectJson, io: CommandIO): Promise<void> {
  const prompts = await import('@clack/prompts')
  const streams = promptStreams(io)
  prompts.note(project.next.join('\n'), 'Next', streams)
  prompts.outro(`${project.name} is ready in ${project.path}${project.example ? `, with the example resource ${project.example}` : ''} (${project.files.length} files; README.md says what is where)`, streams)
}

/** The binary's IO is the process's own streams; clack reads keys from one and draws on the other. */
function promptStreams(io: CommandIO): { input: Readable; output: Writable } {
  return { input: io.stdin as unknown as Readable, output: io.stdout as unknown as Writable }
}
