/**
 * Redaction. Values of sensitive headers, JSON fields and query parameters
 * are replaced by `[REDACTED]`, and each value removed is remembered as a
 * secret: a last pass replaces any occurrence of a secret anywhere in the
 * record (SQL parameters that came from a password field, a token echoed in
 * an exception message...). Runs in the writer, never on the request path.
 */
import { REDACTED } from './record.ts'

/** Values shorter than this are redacted only where they are the whole value, never inside other text. */
const MIN_SUBSTRING_SECRET = 6

export class Redactor {
  // Most records have no secret: the set is made on the first one.
  private found: Set<string> | undefined

  /** The values redacted so far. */
  get secrets(): ReadonlySet<string> {
    return this.found ?? NO_SECRETS
  }

  /** Forgets the secrets found, to redact another record with the same settings. */
  forget(): void {
    this.found = undefined
  }

  constructor(
    private readonly headerNames: ReadonlySet<string>,
    private readonly fieldNames: ReadonlySet<string>,
  ) {}

  /** Header names lower-cased; accepts a Headers object or a plain record. */
  headers(headers: Headers | Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {}
    if (headers instanceof Headers) headers.forEach((value, name) => (out[name] = this.header(name, value)))
    else {
      for (const name in headers) {
        const lower = lowerCaseName(name)
        out[lower] = this.header(lower, headers[name]!)
      }
    }
    return out
  }

  private header(name: string, value: string): string {
    if (!this.headerNames.has(name)) return value
    this.remember(value)
    const space = value.indexOf(' ')
    if (space > 0) this.remember(value.slice(space + 1).trim()) // Bearer <token>
    for (const part of value.split(/[;,]/)) {
      const equals = part.indexOf('=')
      if (equals > 0) this.remember(part.slice(equals + 1).trim()) // cookie values
    }
    return REDACTED
  }

  /** `a=1&token=xyz` with named parameters redacted (kept in their order, encoded as they came). */
  queryString(search: string): string {
    if (search === '' || search === '?') return ''
    const raw = search.startsWith('?') ? search.slice(1) : search
    return raw
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=')
        const name = safeDecode(equals === -1 ? pair : pair.slice(0, equals)).toLowerCase()
        if (equals === -1 || !this.fieldNames.has(name)) return pair
        this.remember(safeDecode(pair.slice(equals + 1)))
        return `${pair.slice(0, equals)}=${REDACTED}`
      })
      .join('&')
  }

  /** A deep copy of a JSON value with named fields redacted, at any depth. */
  json(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.json(item))
    if (value === null || typeof value !== 'object') return value
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key]
      if (this.fieldNames.has(key.toLowerCase()) && field !== null && field !== undefined && field !== '') {
        this.rememberDeep(field)
        out[key] = REDACTED
      } else out[key] = this.json(field)
    }
    return out
  }

  /** Text that may be cut JSON or a form body: named fields are redacted by pattern. */
  text(text: string): string {
    let out = text.replace(/"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s"]+)/g, (whole, key: string, colon: string, value: string) => {
      if (!this.fieldNames.has(key.toLowerCase())) return whole
      this.remember(value.startsWith('"') ? value.replace(/^"|"$/g, '') : value)
      return `"${key}"${colon}"${REDACTED}"`
    })
    out = out.replace(/(^|&)([^=&\s]+)=([^&]*)/g, (whole, lead: string, key: string, value: string) => {
      if (!this.fieldNames.has(safeDecode(key).toLowerCase())) return whole
      this.remember(safeDecode(value))
      return `${lead}${key}=${REDACTED}`
    })
    return out
  }

  /** Whether a remembered secret occurs in the text. */
  mentionsSecret(text: string): boolean {
    for (const secret of this.secrets) {
      if (secret.length >= MIN_SUBSTRING_SECRET ? text.includes(secret) : text.includes(JSON.stringify(secret))) return true
    }
    return false
  }

  /**
   * Replaces every remembered secret anywhere in a JSON-like value. Objects
   * and arrays that change are copied, never altered: records of a batch
   * share parts.
   */
  scrub<T>(value: T): T {
    if (this.secrets.size === 0) return value
    return this.scrubValue(value) as T
  }

  private scrubValue(value: unknown): unknown {
    if (typeof value === 'string') return this.scrubString(value)
    if (typeof value === 'number' || typeof value === 'bigint') {
      return this.secrets.has(String(value)) ? REDACTED : value
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined
      for (let i = 0; i < value.length; i++) {
        const scrubbed = this.scrubValue(value[i])
        if (scrubbed !== value[i]) (copy ??= [...value])[i] = scrubbed
      }
      return copy ?? value
    }
    if (value !== null && typeof value === 'object') {
      const object = value as Record<string, unknown>
      let copy: Record<string, unknown> | undefined
      for (const key of Object.keys(object)) {
        const scrubbed = this.scrubValue(object[key])
        if (scrubbed !== object[key]) (copy ??= { ...object })[key] = scrubbed
      }
      return copy ?? object
    }
    return value
  }

  private scrubString(text: string): string {
    if (this.secrets.has(text)) return REDACTED
    let out = text
    for (const secret of this.secrets) {
      if (secret.length >= MIN_SUBSTRING_SECRET && out.includes(secret)) out = out.split(secret).join(REDACTED)
    }
    return out
  }

  private remember(value: string): void {
    if (value !== '' && value !== REDACTED) (this.found ??= new Set()).add(value)
  }

  private rememberDeep(value: unknown): void {
    if (typeof value === 'string') this.remember(value)
    else if (typeof value === 'number' || typeof value === 'boolean') this.remember(String(value))
    else if (Array.isArray(value)) value.forEach((item) => this.rememberDeep(item))
    else if (value !== null && typeof value === 'object') Object.values(value).forEach((item) => this.rememberDeep(item))
  }
}

const NO_SECRETS: ReadonlySet<string> = new Set()

// Header names come back for every response (X-Service-Trace-Id...): lower-cased once, not once a record.
const lowerCaseNames = new Map<string, string>()
const MAX_CACHED_NAMES = 1000

function lowerCaseName(name: string): string {
  let lower = lowerCaseNames.get(name)
  if (lower === undefined) {
    lower = name.toLowerCase()
    if (lowerCaseNames.size >= MAX_CACHED_NAMES) lowerCaseNames.clear()
    lowerCaseNames.set(name, lower)
  }
  return lower
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}
