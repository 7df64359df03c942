/**
 * Writes what generators planned, after checking all of it: every file and
 * every edit is worked out before the first byte is written, so a refusal
 * (a name, a stub, an unreadable file) leaves the app as it was. A file
 * that exists is skipped (kept as it is) unless `force`; an edit that
 * cannot be made safely leaves its file untouched and says what to add.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { MakeEditJson, MakeJson, MakeSkippedJson } from '../contract/index.ts'
import { CliError } from '../output/cli-error.ts'
import { appliedMigrations, migrationName, refuseAppliedMigrations } from './applied-migrations.ts'
import type { Project } from '../project/project.ts'
import type { GeneratedFile } from './template.ts'

/** An edit of a file the app already has (or that the edit creates). */
export interface SourceEdit {
  /** Relative to the app folder. */
  path: string
  /** What it adds, for people: `the products routes`. */
  what: string
  /** The file's new text from its current one (undefined: the file does not exist). */
  apply(current: string | undefined): EditOutcome
}

export type EditOutcome =
  | { status: 'changed'; contents: string }
  | { status: 'unchanged' }
  | { status: 'manual'; reason: string; lines: string[] }
  /** The file has something in the way (another resource's routes on the same paths): the plan cannot be carried out. */
  | { status: 'conflict'; reason: string }

export interface Plan {
  files: GeneratedFile[]
  edits?: SourceEdit[]
  /**
   * The files only work together (make:crud: the routes, the controller, the tests): a file that exists and
   * differs (without `force`) refuses the whole plan instead of being skipped. The command, for the message.
   */
  whole?: string
  /** Said first in the fix when a whole plan is refused: a likelier cause than "add --force" (make:crud run again without its --fields). */
  wholeHint?: string
  /** In place of make:crud's words when a whole plan is refused: why (after the command) and the fix. */
  wholeRefusal?: { reason: string; fix: string }
  /** The next steps, when they depend on what the plan found; in place of the command's own. */
  next?: string[]
}

const MIGRATION = /^database\/migrations\/\d+_(.+\.ts)$/

/** What a plan did: the `MakeJson` document, and which of its written files existed before (`--force`). */
export interface PlanOutcome {
  json: MakeJson
  overwritten: string[]
}

export async function writePlan(project: Project, plan: Plan, force: boolean): Promise<MakeJson> {
  return (await carryOutPlan(project, plan, force)).json
}

export async function carryOutPlan(project: Project, plan: Plan, force: boolean): Promise<PlanOutcome> {
  const shown = (absolute: string) => relative(project.root, absolute).split(sep).join('/')
  const result: MakeJson = { written: [], skipped: [], edits: [] }
  const overwritten: string[] = []
  const writes: Array<{ absolute: string; contents: string }> = []
  const seen = new Set<string>()
  const migrationsToOverwrite: string[] = []
  const differingMigrations: Array<{ entry: MakeSkippedJson; absolute: string }> = []

  for (const file of plan.files) {
    const absolute = resolve(project.appDir, existingMigration(project.appDir, file.path) ?? file.path)
    if (!absolute.startsWith(project.appDir + sep)) throw new Error(`A generator wanted to write ${file.path}, outside the app`)
    if (seen.has(absolute)) throw new Error(`Two templates write ${file.path}`)
    seen.add(absolute)
    if (existsSync(absolute)) {
      const identical = readFileSync(absolute, 'utf8') === file.contents
      if (!force || identical) {
        const entry: MakeSkippedJson = { path: shown(absolute), identical }
        result.skipped.push(entry)
        if (!identical && MIGRATION.test(relative(project.appDir, absolute).split(sep).join('/'))) differingMigrations.push({ entry, absolute })
        continue
      }
      overwritten.push(shown(absolute))
      if (MIGRATION.test(relative(project.appDir, absolute).split(sep).join('/'))) migrationsToOverwrite.push(absolute)
    }
    writes.push({ absolute, contents: file.contents })
    result.written.push(shown(absolute))
  }

  // --force rewrites a migration only while it has not run: the database would not follow the new text.
  await refuseAppliedMigrations(project, migrationsToOverwrite)
  // A kept migration that differs says whether --force could rewrite it.
  const applied = await appliedMigrations(project, differingMigrations.map(({ absolute }) => migrationName(absolute)))
  for (const { entry, absolute } of differingMigrations) if (applied.has(migrationName(absolute))) entry.applied = true

  const differing: string[] = plan.whole === undefined ? [] : result.skipped.filter((file) => !file.identical).map((file) => `${file.path} exists and differs`)
  const inTheWay: string[] = []
  for (const edit of plan.edits ?? []) {
    const absolute = resolve(project.appDir, edit.path)
    const pending = writes.find((write) => write.absolute === absolute)
    const current = pending?.contents ?? (existsSync(absolute) ? readFileSync(absolute, 'utf8') : undefined)
    const outcome = edit.apply(current)
    if (outcome.status === 'conflict') {
      inTheWay.push(outcome.reason)
      continue
    }
    const entry: MakeEditJson = { path: shown(absolute), what: edit.what, status: outcome.status === 'changed' && current === undefined ? 'created' : outcome.status }
    if (outcome.status === 'changed') {
      if (pending !== undefined) pending.contents = outcome.contents
      else writes.push({ absolute, contents: outcome.contents })
    } else if (outcome.status === 'manual') {
      entry.reason = outcome.reason
      entry.lines = outcome.lines
    }
    result.edits.push(entry)
  }

  const conflicts = [...differing, ...inTheWay]
  if (conflicts.length > 0) {
    const reason = plan.wholeRefusal?.reason ?? 'would leave a resource that does not work'
    throw new CliError('E_EXISTS', `${plan.whole} ${reason}, so it wrote nothing:\n${conflicts.map((line) => `  ${line}`).join('\n')}`, {
      // --force overwrites files; it cannot move another resource's routes.
      hint:
        inTheWay.length > 0
          ? 'pick another name (or move the routes that are in the way)'
          : (plan.wholeRefusal?.fix ?? `${plan.wholeHint === undefined ? '' : `${plan.wholeHint}; or `}add --force to overwrite those files, or pick another name`),
    })
  }
  for (const { absolute, contents } of writes) {
    mkdirSync(dirname(absolute), { recursive: true })
    writeFileSync(absolute, contents)
  }
  return { json: result, overwritten }
}

/** A migration the app already has under another timestamp (`<any>_create_products_table.ts`): the same migration. */
function existingMigration(appDir: string, path: string): string | undefined {
  const suffix = MIGRATION.exec(path)?.[1]
  if (suffix === undefined) return undefined
  const dir = join(appDir, 'database', 'migrations')
  if (!existsSync(dir)) return undefined
  const found = readdirSync(dir).find((file) => /^\d+_/.test(file) && file.replace(/^\d+_/, '') === suffix)
  return found === undefined ? undefined : `database/migrations/${found}`
}
