/**
 * The request items of `svc t` (httpie's syntax, with typed values):
 *
 * | Item            | Goes to                | Value                                                  |
 * |-----------------|------------------------|--------------------------------------------------------|
 * | `name:=json`    | a JSON body field      | the JSON as written (`tags:='["a"]'`, `n:=null`)        |
 * | `name==value`   | the query string       | text                                                   |
 * | `name=value`    | a JSON body field      | a number (`3`, `-1.5`), `true`/`false`, else text        |
 * | `Name:value`    | a request header       | text                                                   |
 *
 * The separator that comes first in the item decides, the longer one at the
 * same place, as in httpie: `a:=1` is JSON, `a==1` a query parameter, `a=b:c`
 * a body field, `X-Id:a=b` a header. To send digits as text, give JSON:
 * `code:='"007"'`.
 */
import { CliError } from '../output/cli-error.ts'

export interface RequestItems {
  /** The JSON body's fields, or null when no item gave one. */
  body: Record<string, unknown> | null
  query: Array<[string, string]>
  headers: Array<[string, string]>
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

export function parseRequestItems(items: readonly string[]): RequestItems {
  const parsed: RequestItems = { body: null, query: [], headers: [] }
  for (const item of items) {
    const separator = findSeparator(item)
    if (separator === undefined) {
      throw new CliError('E_BAD_ARGUMENTS', `"${item}" is not a request item`, {
        hint: 'write name=value (body field), name:=json (JSON value), name==value (query) or Header:value',
      })
    }
    const { at, kind } = separator
    const name = item.slice(0, at)
    const raw = item.slice(at + SEPARATORS[kind].length)
    if (kind === 'query') parsed.query.push([name, raw])
    else if (kind === 'header') parsed.headers.push([name, raw])
    else (parsed.body ??= {})[name] = kind === 'json' ? parseJson(name, raw) : typedValue(raw)
  }
  return parsed
}

/** `3` and `-1.5` are numbers, `true` and `false` booleans; anything else stays text (so do numbers past 2^53). */
export function typedValue(raw: string): unknown {
  if (raw === 'true') return true
  if (raw === 'false') return false
  if (NUMBER.test(raw)) {
    const value = Number(raw)
    if (Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return value
  }
  return raw
}

const SEPARATORS = { json: ':=', query: '==', field: '=', header: ':' } as const
type SeparatorKind = keyof typeof SEPARATORS

/** The separator that comes first in the item; at the same place the longer one (`:=` before `:`, `==` before `=`). */
function findSeparator(item: string): { at: number; kind: SeparatorKind } | undefined {
  let found: { at: number; kind: SeparatorKind } | undefined
  for (const kind of Object.keys(SEPARATORS) as SeparatorKind[]) {
    const at = item.indexOf(SEPARATORS[kind])
    // A name comes first: `=x` or `:x` is not an item.
    if (at > 0 && (found === undefined || at < found.at)) found = { at, kind }
  }
  return found
}

function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch (error) {
    throw new CliError('E_BAD_ARGUMENTS', `${name}:= takes JSON, got ${raw === '' ? 'nothing' : `"${raw}"`} (${(error as Error).message})`, {
      hint: `quote it for the shell: ${name}:='{"a":1}'`,
    })
  }
}
