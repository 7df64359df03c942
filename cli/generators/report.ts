/** How a generator's result is shown: what it wrote, kept and edited, and what to do next. */
import type { MakeJson } from '../contract/index.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine, printNote } from '../output/print.ts'

/** `overwritten`: the written files that existed (`--force`), shown as such. */
export function printMade(io: CommandIO, result: MakeJson, next: readonly string[] = [], overwritten: readonly string[] = []): void {
  const color = colors(io)
  for (const path of result.written) printLine(io, overwritten.includes(path) ? `${color.yellow('Overwrote')} ${path}` : `${color.green('Created')} ${path}`)
  for (const { path, identical, applied } of result.skipped) {
    const state = identical
      ? '(unchanged)'
      : applied === true
        ? '(differs; the database has run it, so --force will not rewrite it: change the table with a new migration)'
        : '(differs; --force overwrites it)'
    printLine(io, `${color.dim('Exists ')} ${path} ${color.dim(state)}`)
  }
  for (const edit of result.edits) {
    if (edit.status === 'created') printLine(io, `${color.green('Created')} ${edit.path} (${edit.what})`)
    else if (edit.status === 'changed') printLine(io, `${color.green('Updated')} ${edit.path}: ${edit.what}`)
    else if (edit.status === 'unchanged') printLine(io, `${color.dim('Exists ')} ${edit.path} ${color.dim(`(already has ${edit.what})`)}`)
    else {
      printLine(io, `${color.yellow('Not changed')} ${edit.path}: ${edit.reason}. Add ${edit.what} by hand:`)
      for (const line of edit.lines ?? []) printLine(io, line === '' ? '' : `    ${line}`)
    }
  }
  if (next.length > 0 && (result.written.length > 0 || result.edits.some((edit) => edit.status !== 'unchanged'))) printNote(io, `Next: ${next.join(', then ')}.`)
}
