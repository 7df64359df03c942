/**
 * Where a route was defined, read from an Error created inside `add()`.
 * Reading the stack is deferred to the moment a route list is asked for.
 */
import type { SourceLocation } from './types.ts'

// Frames: 0 "Error: ...", 1 RouteRegistrar.add, 2 RouteRegistrar.get (or post...), 3 the caller.
const CALLER_FRAME = 3
const FRAME = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?$/

export function readSourceLocation(definedAt: Error): SourceLocation | null {
  const frame = definedAt.stack?.split('\n')[CALLER_FRAME]
  const match = frame === undefined ? null : FRAME.exec(frame.trim())
  if (match === null) return null
  const file = match[1]!.startsWith('file://') ? decodeURIComponent(new URL(match[1]!).pathname) : match[1]!
  return { file, line: Number(match[2]), column: Number(match[3]) }
}
