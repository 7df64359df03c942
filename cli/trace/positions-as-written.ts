/**
 * A trace's source positions in the files as written, for the views of a
 * trace (`log:trace` and its `--json`, which the editor reads). The server
 * records the stack's positions as they come: under jiti their column is
 * babel's (Node 20 does not map jiti's code, cli/project/source-position.ts).
 * Mapped here, when a person or a tool reads the trace, so that the request
 * path never pays for it.
 *
 * A file modified after the request has another source map: mapped through
 * it, a position would name a line of the new code as if it had thrown. So
 * such a position is left as recorded and flagged `stale` (docs/traces.md).
 */
import { statSync } from 'node:fs'
import type { TraceRecord, TraceSourceLocation } from '../../framework/trace/index.ts'
import { useTranspilerOf } from '../project/import-file.ts'
import type { Project } from '../project/project.ts'
import { originalPosition } from '../project/source-position.ts'

/** `at fn (/app/x.ts:14:91)` or `at /app/x.ts:14:91`: the position at the end of a stack line. */
const FRAME_POSITION = /((?:file:\/\/)?[^\s()]+\.[cm]?tsx?):(\d+):(\d+)(\)?)$/

export function traceAsWritten(project: Pick<Project, 'storageDir'>, record: TraceRecord): TraceRecord {
  const takenAt = Date.parse(record.timestamp)
  const positions = [record.exception?.location, ...record.queries.map((query) => query.source), ...record.n_plus_one.map((finding) => finding.source)]
  if (!positions.some((position) => position != null && /\.[cm]?tsx?$/.test(position.file)) && record.trace === null) return record
  useTranspilerOf(project.storageDir)
  const asWritten = <T extends TraceSourceLocation | null>(position: T): T => (position === null ? position : (positionAsWritten(position, takenAt) as T))
  return {
    ...record,
    exception: record.exception === null ? null : { ...record.exception, location: asWritten(record.exception.location) },
    queries: record.queries.map((query) => (query.source === null ? query : { ...query, source: asWritten(query.source) })),
    n_plus_one: record.n_plus_one.map((finding) => (finding.source === null ? finding : { ...finding, source: asWritten(finding.source) })),
    trace: record.trace === null ? null : record.trace.map((line) => frameAsWritten(line, takenAt)),
  }
}

/** `position`, recorded by a request at `takenAt` (epoch ms), in its file as written; `stale` when the file changed since. */
export function positionAsWritten(position: TraceSourceLocation, takenAt: number): TraceSourceLocation {
  let modified: number
  try {
    modified = statSync(position.file).mtimeMs
  } catch {
    return position // gone: nothing to map through, and nothing to open either
  }
  if (Number.isFinite(takenAt) && modified > takenAt) return { ...position, stale: true }
  return originalPosition(position)
}

/** ` at <file>:<line>:<column>`, said `(as recorded; the file changed since)` when it is stale. */
export function positionText(position: TraceSourceLocation): string {
  return `${position.file}:${position.line}:${position.column}${position.stale === true ? ' (as recorded; the file changed since the request)' : ''}`
}

/** A stack line's position in the file as written; one whose file changed since keeps the recorded one. */
function frameAsWritten(line: string, takenAt: number): string {
  const match = FRAME_POSITION.exec(line)
  if (match === null) return line
  const file = match[1]!.startsWith('file://') ? decodeURIComponent(new URL(match[1]!).pathname) : match[1]!
  const at = positionAsWritten({ file, line: Number(match[2]), column: Number(match[3]) }, takenAt)
  if (at.stale === true) return line
  return `${line.slice(0, match.index)}${match[1]}:${at.line}:${at.column}${match[4]}`
}
