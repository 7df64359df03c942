/** The human view of the API description's warnings (stderr: stdout stays the summary). */
import type { OpenApiWarningJson } from '../contract/api-docs.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printNote } from '../output/print.ts'

export function printOpenApiWarnings(io: CommandIO, warnings: readonly OpenApiWarningJson[]): void {
  const color = colors(io, io.stderr)
  for (const warning of warnings) {
    const where = warning.part === 'path' ? '' : warning.field === '' ? `, the whole ${warning.part}` : `, ${warning.part} field ${warning.field}`
    printNote(io, `${color.yellow('warning')}: ${warning.method} ${warning.path}${where}: ${warning.message}`)
  }
  if (warnings.length > 0) printNote(io, `${warnings.length} warning${warnings.length === 1 ? '' : 's'}: what is named above is approximated or left out of the description (docs/openapi.md).`)
}
