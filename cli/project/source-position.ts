/**
 * Positions in the app's TypeScript as written. jiti runs transpiled code
 * (babel keeps each statement's line, not its column) through `vm`, whose
 * stacks Node 20 does not map through source maps even with source maps
 * enabled: a frame's column is the transpiled one (`routes/api.ts:14:91` on
 * a 36-character line). The inline source map jiti wrote beside the code
 * maps it back.
 */
import { readFileSync, statSync } from 'node:fs'
import { SourceMap, type SourceMapPayload } from 'node:module'
import { transpiledCode } from './import-file.ts'

export interface SourcePosition {
  file: string
  line: number
  column: number
}

// jiti runs a module inside this wrapper, on the code's first line: columns there are shifted by its length.
const JITI_WRAPPER = '(async function (exports, require, module, __filename, __dirname, jitiImport, jitiESMResolve) { '
// Not anchored at the end: jiti's transpile cache appends a version comment (` /* v9-... */`) after the map.
const INLINE_MAP = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)/

const maps = new Map<string, SourceMap | null>()

/** `position` (1-based, as a stack frame gives it) in the file as written; unchanged when the file was not run by jiti. */
export function originalPosition<T extends SourcePosition>(position: T): T {
  const map = sourceMapOf(position.file)
  if (map === null) return position
  const column = position.line === 1 ? position.column - JITI_WRAPPER.length : position.column
  if (column < 1) return position
  const entry = map.findEntry(position.line - 1, column - 1) as { originalLine?: number; originalColumn?: number }
  if (entry.originalLine === undefined || entry.originalColumn === undefined) return position
  return { ...position, line: entry.originalLine + 1, column: entry.originalColumn + 1 }
}

/**
 * Where a route was defined (`r.get(`), in the file as written: at the
 * method's name, where V8 places a call. It places `r.delete(` at its
 * parenthesis instead (`delete` is a keyword: babel and V8 treat the member
 * differently), so route:list's column for every DELETE route pointed past
 * the name; it is moved back onto the name, on the same line.
 */
export function routeDefinitionPosition<T extends SourcePosition>(position: T): T {
  const at = originalPosition(position)
  let line: string | undefined
  try {
    line = readFileSync(at.file, 'utf8').split('\n')[at.line - 1]
  } catch {
    return at
  }
  if (line === undefined || line[at.column - 1] !== '(') return at
  const name = /\.\s*([A-Za-z_$][\w$]*)\s*$/.exec(line.slice(0, at.column - 1))
  return name === null ? at : { ...at, column: name.index + name[0].indexOf(name[1]!, 1) + 1 }
}

function sourceMapOf(file: string): SourceMap | null {
  let key: string
  try {
    // An edited file (the language server lists routes again) has another map.
    key = `${file}\0${statSync(file).mtimeMs}`
  } catch {
    return null
  }
  let map = maps.get(key)
  if (map === undefined) {
    const inline = INLINE_MAP.exec(transpiledCode(file) ?? '')
    map = inline === null ? null : new SourceMap(JSON.parse(Buffer.from(inline[1]!, 'base64').toString('utf8')) as SourceMapPayload)
    // Only a found map is kept: before jiti loads anything there is none, and that must not stick.
    if (map !== null) maps.set(key, map)
  }
  return map
}
