/**
 * Redaction. Values of sensitive headers (by name pattern), JSON fields and
 * query parameters are replaced by `[REDACTED]`, and each value removed is
 * remembered as a secret: a last pass replaces any occurrence of a secret
 * anywhere in the record (SQL parameters that came from a password field, a
 * token echoed in an exception message...). Text that is not JSON (a
 * malformed body, a form, multipart, an exception message) is redacted by
 * pattern. Runs in the writer, never on the request path.
 */
import { REDACTED, TOO_DEEP } from './record.ts'

/** Values shorter than this are redacted only where they are the whole value, never inside other text. */
const MIN_SUBSTRING_SECRET = 6

/** A header whose name contains one of these words is redacted, whatever the rest of its name. */
export const REDACTED_HEADER_PATTERN = /token|key|secret|auth|cookie|session|passw/
/** Headers the pattern matches that carry no credential: the challenges a 401 answers with (`Bearer error="invalid_token"`). */
const CHALLENGE_HEADERS = new Set(['www-authenticate', 'proxy-authenticate'])

/** JSON nested deeper than this is cut (recursion over it would overflow the stack); the body is then `truncated`. */
export const MAX_JSON_DEPTH = 64

/** Authorization schemes: a header value that is one of these alone names the scheme and holds no credential. */
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'digest', 'token', 'negotiate'])

export class Redactor {
  // Most records have no secret: the set is made on the first one.
  private found: Set<string> | undefined
  private tooDeep = false
  /** Header name => whether it is redacted (a batch sees the same few names again and again). */
  private readonly headerVerdicts = new Map<string, boolean>()

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

  /** Whether a header (lower-case name) is redacted: a configured name, or one matching `REDACTED_HEADER_PATTERN`. */
  isSecretHeader(name: string): boolean {
    let verdict = this.headerVerdicts.get(name)
    if (verdict === undefined) {
      verdict = this.headerNames.has(name) || (REDACTED_HEADER_PATTERN.test(name) && !CHALLENGE_HEADERS.has(name))
      if (this.headerVerdicts.size < 1000) this.headerVerdicts.set(name, verdict)
    }
    return verdict
  }

  private header(name: string, value: string): string {
    if (!this.isSecretHeader(name)) return value
    // `Authorization: Bearer` with no token carries no secret; remembered, the word "Bearer" was cut out of every
    // text of the trace (`missingBearer` in the stack read `missing[REDACTED]`, and so did the 401's own message).
    if (AUTH_SCHEMES.has(value.trim().toLowerCase())) return REDACTED
    this.remember(value)
    // Bearer <token>; after a tab too (`Bearer\t<token>`, refused by auth, still carries the token).
    const space = value.search(/\s/)
    if (space > 0) this.remember(value.slice(space + 1).trim())
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

  /**
   * A deep copy of a JSON value with named fields redacted, at any depth;
   * below `MAX_JSON_DEPTH` levels the value is replaced by a marker
   * (`cutTooDeep()` then says so).
   */
  json(value: unknown, depth = 0): unknown {
    if (value === null || typeof value !== 'object') return value
    if (depth >= MAX_JSON_DEPTH) {
      this.tooDeep = true
      return TOO_DEEP
    }
    if (Array.isArray(value)) return value.map((item) => this.json(item, depth + 1))
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key]
      if (this.fieldNames.has(key.toLowerCase()) && field !== null && field !== undefined && field !== '') {
        this.rememberDeep(field, depth)
        setField(out, key, REDACTED)
      } else setField(out, key, this.json(field, depth + 1))
    }
    return out
  }

  /**
   * A response body: as `json`, except the messages of a validation error
   * (`errors.<field>` of an error envelope) are kept: `errors.password` says
   * why the password was refused, it is not the password (one echoed in a
   * message is still replaced, as every remembered secret is).
   */
  responseJson(value: unknown): unknown {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return this.json(value)
    const envelope = value as Record<string, unknown>
    const errors = envelope.errors
    if (envelope.success !== false || errors === null || typeof errors !== 'object' || Array.isArray(errors)) return this.json(value)
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(envelope)) {
      if (key === 'errors') {
        const messages: Record<string, unknown> = {}
        for (const field of Object.keys(errors)) setField(messages, field, this.json((errors as Record<string, unknown>)[field], 2))
        setField(out, key, messages)
      } else setField(out, key, (this.json({ [key]: envelope[key] }) as Record<string, unknown>)[key])
    }
    return out
  }

  /** True once a value was cut at `MAX_JSON_DEPTH` since the last call (which resets it). */
  cutTooDeep(): boolean {
    const cut = this.tooDeep
    this.tooDeep = false
    return cut
  }

  /**
   * Text that may be cut or malformed JSON, a form, multipart or a message:
   * values of named fields are redacted by pattern (`"password": "x"`,
   * `'password': 'x'`, `password: x`, `password=x`, a multipart part named
   * `password`), and so are credentials after `Bearer` or `Basic`.
   */
  text(text: string): string {
    let out = text.replace(KEY_VALUE, (whole, doubleQuoted?: string, singleQuoted?: string, bare?: string, colon?: string, value?: string) => {
      const key = doubleQuoted ?? singleQuoted ?? bare ?? ''
      if (!this.fieldNames.has(key.toLowerCase())) return whole
      this.remember(unquote(value!))
      const quote = doubleQuoted !== undefined ? '"' : singleQuoted !== undefined ? "'" : ''
      return `${quote}${key}${quote}${colon}"${REDACTED}"`
    })
    out = out.replace(FORM_PAIR, (whole, lead: string, key: string, value: string) => {
      if (!this.fieldNames.has(safeDecode(key).toLowerCase())) return whole
      this.remember(safeDecode(value))
      return `${lead}${key}=${REDACTED}`
    })
    if (out.includes('form-data')) {
      out = out.replace(MULTIPART_PART, (whole, head: string, name: string, value: string) => {
        if (!this.fieldNames.has(name.toLowerCase())) return whole
        this.remember(value)
        return `${head}${REDACTED}`
      })
    }
    return out.replace(CREDENTIALS, (_whole, scheme: string, credentials: string) => {
      this.remember(credentials)
      return `${scheme} ${REDACTED}`
    })
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

  private rememberDeep(value: unknown, depth: number): void {
    if (typeof value === 'string') this.remember(value)
    else if (typeof value === 'number' || typeof value === 'boolean') this.remember(String(value))
    else if (depth >= MAX_JSON_DEPTH) return
    else if (Array.isArray(value)) value.forEach((item) => this.rememberDeep(item, depth + 1))
    else if (value !== null && typeof value === 'object') Object.values(value).forEach((item) => this.rememberDeep(item, depth + 1))
  }
}

const NO_SECRETS: ReadonlySet<string> = new Set()

/** `"key": value`, `'key': value` or `key: value`, the value quoted or not (the text may be cut or malformed JSON). */
const KEY_VALUE = /(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|\b([A-Za-z_][\w.-]*))(\s*:\s*)("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[^,}\]\s"'&;]+)/g
/** `key=value` in a form, a query string or a message. */
const FORM_PAIR = /(^|[&?;\s])([^=&?;\s]+)=([^&;\s]*)/g
/** A multipart part's value: its headers (with `name="..."`), a blank line, the value up to the next boundary. */
const MULTIPART_PART = /(name="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([\s\S]*?)(?=\r?\n--|$)/g
/** Credentials of an Authorization value quoted in text. */
const CREDENTIALS = /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{6,})/gi

function unquote(value: string): string {
  const quote = value[0]
  if (quote !== '"' && quote !== "'") return value
  return value.slice(1, value.endsWith(quote) && value.length > 1 ? -1 : undefined)
}

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

/**
 * `out[key] = value`, a key `__proto__` included: JSON.parse makes it an own
 * field of a body, where an assignment would set the copy's prototype and
 * the trace (and a replay of it) would lose the field.
 */
function setField(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  else out[key] = value
}
