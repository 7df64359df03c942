/**
 * Writes what generators planned, after checking all of it: every file and
 * every edit is worked out before the first byte is written, so a refusal
 * (a name, a stub, an unreadable file) leaves the app as it was. A file
 * that exists is skipped (kept as it is) unless `force`; an edit that
 * cannot be made safely leaves its file untouched and says what to add.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { MakeEditJson, MakeJson } from '../contract/index.ts'
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

export interface Plan {
  files: GeneratedFile[]
  edits?: SourceEdit[]
}

const MIGRATION = /^database\/migrations\/\d+_(.+\.ts)$/

export function writePlan(project: Project, plan: Plan, force: boolean): MakeJson {
  const shown = (absolute: string) => relative(project.root, absolute).split(sep).join('/')
  const result: MakeJson = { written: [], skipped: [], edits: [] }
  const writes: Array<{ absolute: string; contents: string }> = []
  const seen = new Set<string>()

  for (const file of plan.files) {
    const absolute = resolve(project.appDir, existingMigration(project.appDir, file.path) ?? file.path)
    if (!absolute.startsWith(project.appDir + sep)) throw new Error(`A generator wanted to write ${file.path}, outside the app`)
    if (seen.has(absolute)) throw new Error(`Two templates write ${file.path}`)
    seen.add(absolute)
    if (existsSync(absolute)) {
      const identical = readFileSync(absolute, 'utf8') === file.contents
      if (!force || identical) {
        result.skipped.push({ path: shown(absolute), identical })
        continue
      }
    }
    writes.push({ absolute, contents: file.contents })
    result.written.push(shown(absolute))
  }

  for (const edit of plan.edits ?? []) {
    const absolute = resolve(project.appDir, edit.path)
    const pending = writes.find((write) => write.absolute === absolute)
    const current = pending?.contents ?? (existsSync(absolute) ? readFileSync(absolute, 'utf8') : undefined)
    const outcome = edit.apply(current)
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

  for (const { absolute, contents } of writes) {
    mkdirSync(dirname(absolute), { recursive: true })
    writeFileSync(absolute, contents)
  }
  return result
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
