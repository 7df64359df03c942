/**
 * Replay: rebuilds a traced request and sends it to the app built from the
 * current code (in process, `app.fetch`), or to a server (`--url`).
 * Redacted credentials cannot be sent as they were: they are left out and
 * listed, unless `--as=<email>` signs a fresh token or `--set` gives a value
 * (run-replay.ts refuses to send a body or query placeholder). What the trace
 * did not keep (a cut or refused body, bytes the HTTP parser refused) is not
 * replayed at all: `unreplayable` says why.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CONN_INFO, TRACE_HEADER, type EnvRecord } from '../../framework/index.ts'
import { REDACTED, type TraceRecord } from '../../framework/trace/index.ts'
import type { AuthTokenJson } from '../contract/routes.ts'
import type { ReplayRequestJson, ReplayResponseJson } from '../contract/traces.ts'
import { CliError } from '../output/cli-error.ts'
import { loadApp, type LoadedApp, type LoadOptions } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { isLossyText } from './lossy-body.ts'
import { REPLAY_HEADER } from './replay-header.ts'
import { replayMarker, type ReplaySigner } from './replay-marker.ts'
import { signedAccessToken, usersById, type UserRef } from './sign-as.ts'

/** Not replayed: the transport sets them, or they would make the diff unreadable. */
const TRANSPORT_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'accept-encoding', 'upgrade', 'expect'])
export { REPLAY_HEADER } from './replay-header.ts'

export interface RequestOptions {
  /** `http(s)://host:port`: send there instead of in process. */
  url?: string
  https?: boolean
  /** `field=value` pairs: dotted paths into the JSON body (`user.name=Ada`, `tags.0=x`). */
  sets?: string[]
  /** The project's signer (replaySigner): the replay marker is signed for this request, so that only svc's own replays read as replays. */
  signer: ReplaySigner
}

export interface PreparedRequest {
  request: ReplayRequestJson
  /** Where redacted values were, not replaced yet (`header authorization`, `body.password`, `query token`). */
  redacted: string[]
}

export function prepareRequest(record: TraceRecord, options: RequestOptions): PreparedRequest {
  const redacted: string[] = []
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(record.headers)) {
    if (TRANSPORT_HEADERS.has(name)) continue
    if (value === REDACTED) {
      redacted.push(`header ${name}`)
      continue
    }
    headers[name] = value
  }

  const cannot = unreplayable(record)
  if (cannot !== undefined) throw new CliError(cannot.code, `${record.trace_id} cannot be replayed as it was: ${cannot.reason}`, { hint: cannot.hint })
  let body: unknown = record.body.content
  if ((options.sets ?? []).length > 0 && (record.method === 'GET' || record.method === 'HEAD')) {
    // fetch refuses a GET with a body (E_UNEXPECTED in process), and a server answered what went out with --url with a 400.
    throw new CliError('E_BAD_OPTION', `--set changes a field of the JSON body, and a ${record.method} request has none`, {
      hint: `--edit changes the query string or the headers (svc replay ${record.trace_id} --edit)`,
    })
  }
  for (const assignment of options.sets ?? []) body = applySet(body, assignment)
  if (body !== null && typeof body === 'object') findRedacted(body, 'body', redacted)

  const query = record.query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      if (pair.endsWith(`=${REDACTED}`)) redacted.push(`query ${pair.slice(0, pair.indexOf('='))}`)
      return pair
    })
    .join('&')
  const base = targetBase(options, record.headers.host)
  const text = body === null || body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body)
  if (text !== null && headers['content-type'] === undefined && typeof body !== 'string') headers['content-type'] = 'application/json'
  const url = `${base}${record.path}${query === '' ? '' : `?${query}`}`
  headers[REPLAY_HEADER] = replayMarker(options.signer, record.trace_id, { method: record.method, url })
  return {
    request: { method: record.method, url, headers, body: text },
    redacted,
  }
}

/** Why a recorded request cannot be sent as it was: `replay` refuses with `code`, `test:regression` skips with `reason`. */
export interface Unreplayable {
  code: string
  reason: string
  hint: string
}

export function unreplayable(record: TraceRecord): Unreplayable | undefined {
  if (refusedBeforeTheApp(record)) {
    return {
      code: 'E_TRACE_NOT_HTTP',
      reason: `the server's HTTP parser refused it before the app saw it (${record.status_code}: ${record.exception!.message}); its trace holds only what could be read of its request line (${record.method} ${record.path}), not the bytes that were sent`,
      hint: `nothing to replay: svc log:trace ${record.trace_id} shows what is known (client address, time); to see how the server answers such bytes, send them over a raw socket (nc)`,
    }
  }
  const { body } = record
  if (body.incomplete) {
    return { code: 'E_TRACE_TRUNCATED', reason: `its body never completed (${body.size} bytes arrived)`, hint: 'send the request yourself, with a whole body' }
  }
  if (!body.truncated) return undefined
  if (body.content === null && record.status_code === 413) {
    return {
      code: 'E_TRACE_BODY_REFUSED',
      reason: `the app refused its body for its size (${body.size} bytes, over BODY_LIMIT), and a trace keeps only the size of a body the app refused`,
      hint: 'raising TRACE_BODY_LIMIT cannot help: the app never read the body. If bodies this large must be accepted, raise BODY_LIMIT (the app\'s limit, 1 MiB by default), then send the request yourself',
    }
  }
  if (body.content === null) return { code: 'E_TRACE_TRUNCATED', reason: `its body was not kept, only its size (${body.size} bytes)`, hint: 'send the request yourself' }
  if (typeof body.content !== 'string') {
    return { code: 'E_TRACE_TRUNCATED', reason: 'its body was nested deeper than a trace keeps (64 levels) and cut there', hint: 'send the request yourself' }
  }
  if (isLossyText(body)) {
    return {
      code: 'E_TRACE_TRUNCATED',
      reason: `its body was not UTF-8 text (${body.size} bytes: binary data, or text in another encoding), and a trace keeps a body as text, so the bytes sent were not kept`,
      hint: 'send the request yourself, with the original file (curl --data-binary @file)',
    }
  }
  return {
    code: 'E_TRACE_TRUNCATED',
    reason: `its body was cut at the trace body limit (${body.size} bytes in all, TRACE_BODY_LIMIT kept)`,
    hint: 'raise TRACE_BODY_LIMIT for the next recording, or send the request yourself',
  }
}

/** The statuses svc answers what Node's HTTP parser refused with (framework/node/client-error.ts). */
const PARSER_REFUSALS = new Set([400, 408, 431])

/**
 * A trace of bytes Node's HTTP parser refused (framework/node/client-error.ts,
 * through `app.reject`), as its record says (`refused_before_app`).
 *
 * A record written before svc marked them is judged by its shape: its request
 * is built from the request line alone, so it has no header at all, and no
 * middleware ran, no route matched. That is a guess (an HTTP/1.0 request may
 * come without any header, and an app without global middleware runs none
 * before the router's own 400), kept only for those records.
 */
export function refusedBeforeTheApp(record: TraceRecord): boolean {
  if (record.refused_before_app !== undefined) return record.refused_before_app
  return (
    Object.keys(record.headers).length === 0 &&
    record.middleware.length === 0 &&
    record.route === null &&
    record.body.size === 0 &&
    record.exception?.class === 'HttpError' &&
    PARSER_REFUSALS.has(record.status_code)
  )
}

/**
 * Where a replay goes: `--url`, else the host (and port) the recorded
 * request was sent to, so that `--format curl` prints a command that reaches
 * the same server (`http://127.0.0.1:8080/...`), else localhost.
 */
export function targetBase(options: Pick<RequestOptions, 'url' | 'https'>, recordedHost?: string): string {
  const scheme = options.https ? 'https' : 'http'
  if (options.url === undefined) return `${scheme}://${recordedHost !== undefined && isHostHeader(recordedHost) ? recordedHost : 'localhost'}`
  const bad = new CliError('E_BAD_OPTION', `--url takes http(s)://host[:port], got "${options.url}"`)
  let url = options.url.trim().replace(/\/+$/, '')
  // A scheme, unless what follows the colon is a port (localhost:8080): ftp://x would otherwise become http://ftp://x, the host "ftp".
  const given = /^([A-Za-z][A-Za-z0-9+.-]*):(?!\d+(\/|$))/.exec(url)?.[1]?.toLowerCase()
  if (given !== undefined && given !== 'http' && given !== 'https') throw bad
  if (given === undefined) url = `${scheme}://${url}`
  else if (options.https) url = url.replace(/^http:/i, 'https:')
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw bad
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.host === '') throw bad
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`
}

/** A Host header value that is a host and an optional port, nothing else (it goes into a URL and a shell command). */
function isHostHeader(host: string): boolean {
  return /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)
}

/** `a.b.0=value`: the value is JSON when it parses (`3`, `true`, `null`, `{"x":1}`), else a string. */
export function applySet(body: unknown, assignment: string): unknown {
  const equals = assignment.indexOf('=')
  if (equals <= 0) throw new CliError('E_BAD_OPTION', `--set takes field=value, got "${assignment}"`)
  const path = assignment.slice(0, equals).split('.')
  const raw = assignment.slice(equals + 1)
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    value = raw
  }
  if (typeof body === 'string') throw new CliError('E_BAD_OPTION', '--set works on JSON bodies; this request\'s body is text')
  const root: Record<string, unknown> = body !== null && typeof body === 'object' ? structuredClone(body as Record<string, unknown>) : {}
  let node: Record<string, unknown> = root
  path.forEach((key, i) => {
    if (i === path.length - 1) node[key] = value
    else {
      const next = node[key]
      if (next === null || typeof next !== 'object') node[key] = /^\d+$/.test(path[i + 1]!) ? [] : {}
      node = node[key] as Record<string, unknown>
    }
  })
  return root
}

/**
 * The `--set` fields the recorded JSON body does not have: they are added, which is what `--set meta.tags.0=x`
 * is for, but a misspelt field (`--set titel=x`) is added as well and the app ignores it, so the replay
 * answered as recorded and nothing said why. Said on stderr, with the body's own fields.
 */
export function fieldsAddedBySet(body: unknown, assignments: readonly string[]): string[] {
  if (body === null || typeof body !== 'object') return []
  const added: string[] = []
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=')
    if (equals <= 0) continue
    const field = assignment.slice(0, equals)
    let node: unknown = body
    for (const key of field.split('.')) {
      node = node !== null && typeof node === 'object' && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined
      if (node === undefined) break
    }
    if (node === undefined) added.push(field)
  }
  return added
}

/** Pushes the path of each `[REDACTED]` value in a JSON value (`body.password`, `body.users.0.token`). */
export function findRedacted(value: unknown, path: string, out: string[]): void {
  if (value === REDACTED) out.push(path)
  else if (Array.isArray(value)) value.forEach((item, i) => findRedacted(item, `${path}.${i}`, out))
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) findRedacted(child, `${path}.${key}`, out)
  }
}

/** Opens the request as JSON in $VISUAL / $EDITOR and reads back what was saved. */
export function editRequest(request: ReplayRequestJson, env: EnvRecord = process.env): ReplayRequestJson {
  const editor = env.VISUAL || env.EDITOR
  if (!editor) throw new CliError('E_NO_EDITOR', '--edit needs an editor', { hint: 'set EDITOR (for example EDITOR=nano)' })
  const dir = mkdtempSync(join(tmpdir(), 'svc-replay-'))
  const file = join(dir, 'request.json')
  try {
    const editable = { ...request, body: parseMaybeJson(request.body) }
    writeFileSync(file, `${JSON.stringify(editable, null, 2)}\n`)
    const result = spawnSync(`${editor} "${file}"`, { shell: true, stdio: 'inherit' })
    if (result.status !== 0) throw new CliError('E_EDIT_ABORTED', `The editor exited with ${result.status ?? result.signal}: nothing replayed`)
    let edited: { method?: unknown; url?: unknown; headers?: unknown; body?: unknown }
    try {
      edited = JSON.parse(readFileSync(file, 'utf8'))
    } catch (error) {
      throw new CliError('E_EDIT_INVALID', `The edited request is not valid JSON: ${(error as Error).message}`)
    }
    if (typeof edited.method !== 'string' || typeof edited.url !== 'string' || typeof edited.headers !== 'object' || edited.headers === null) {
      throw new CliError('E_EDIT_INVALID', 'The edited request needs method (string), url (string) and headers (object)')
    }
    const body = edited.body === null || edited.body === undefined ? null : typeof edited.body === 'string' ? edited.body : JSON.stringify(edited.body)
    const method = edited.method.toUpperCase()
    if (body !== null && (method === 'GET' || method === 'HEAD')) {
      throw new CliError('E_EDIT_INVALID', `The edited request is a ${method} with a body, which HTTP clients do not send`, {
        hint: 'set "body" to null, or change "method" (POST, PUT, PATCH...)',
      })
    }
    return { method, url: edited.url, headers: edited.headers as Record<string, string>, body }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function parseMaybeJson(text: string | null): unknown {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The request as a shell command. */
export function commandLine(request: ReplayRequestJson, format: 'curl' | 'httpie', insecure: boolean): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`
  const headers = Object.entries(request.headers)
  if (format === 'curl') {
    return [
      'curl',
      ...(insecure ? ['-k'] : []),
      '-X',
      request.method,
      quote(request.url),
      ...headers.flatMap(([name, value]) => ['-H', quote(`${name}: ${value}`)]),
      ...(request.body === null ? [] : ['--data-raw', quote(request.body)]),
    ].join(' ')
  }
  return [
    'http',
    ...(insecure ? ['--verify=no'] : []),
    ...(request.body === null ? [] : ['--raw', quote(request.body)]),
    request.method,
    quote(request.url),
    ...headers.map(([name, value]) => quote(`${name}:${value}`)),
  ].join(' ')
}

/** Sends prepared requests: to the app in process (built once), or to a server. */
export class ReplayTarget {
  private loaded: Promise<LoadedApp> | undefined
  /** Work the app left running after answering (`executionCtx.waitUntil`): awaited before closing. */
  private readonly background: Promise<unknown>[] = []

  constructor(
    readonly project: Project,
    private readonly options: { url?: string; https?: boolean; insecure?: boolean; load?: LoadOptions } = {},
  ) {}

  get name(): string {
    return this.options.url === undefined ? 'in-process' : targetBase(this.options)
  }

  app(): Promise<LoadedApp> {
    this.loaded ??= loadApp(this.project, this.options.load)
    return this.loaded
  }

  /** A fresh token for `--as` (or the trace's user in regression), signed with the app's settings. */
  async tokenFor(user: UserRef): Promise<string> {
    return (await this.signedFor(user)).token
  }

  async signedFor(user: UserRef): Promise<AuthTokenJson> {
    const loaded = await this.app()
    if (loaded.database === undefined) throw new CliError('E_AS_NO_DATABASE', '--as needs the app database')
    return signedAccessToken(this.project, loaded.config, loaded.database, user)
  }

  /** The email of a user of the app's database, undefined when there is no such user (or no users table). */
  async emailOf(userId: number | string): Promise<string | undefined> {
    const loaded = await this.app()
    return (await usersById(loaded.database, [userId])).get(String(userId))?.email
  }

  async send(request: ReplayRequestJson, clientAddress = '127.0.0.1'): Promise<ReplayResponseJson> {
    const started = performance.now()
    if (this.options.url !== undefined) {
      const response = await sendOverHttp(request, this.options.insecure === true)
      return { ...response, duration_ms: round(performance.now() - started) }
    }
    const loaded = await this.app()
    const response = await loaded.app.fetch(
      new Request(request.url, { method: request.method, headers: request.headers, body: request.body ?? undefined }),
      { [CONN_INFO]: { remoteAddress: clientAddress } },
      { waitUntil: (promise) => void this.background.push(promise) },
    )
    const text = await response.text()
    const headers: Record<string, string> = {}
    response.headers.forEach((value, name) => (headers[name] = value))
    return {
      status: response.status,
      headers,
      body: parseBody(text, headers['content-type']),
      duration_ms: round(performance.now() - started),
      trace_id: response.headers.get(TRACE_HEADER),
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.background)
    if (this.loaded !== undefined) await (await this.loaded).close()
  }
}

function sendOverHttp(request: ReplayRequestJson, insecure: boolean): Promise<Omit<ReplayResponseJson, 'duration_ms'>> {
  const url = new URL(request.url)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    // The body's length, as the recorded request had it: written in pieces, Node would send it chunked, and the
    // replay's own trace would read "incomplete" whenever the app answered without reading it (a 401, a 404).
    const headers = request.body === null ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) }
    const outgoing = send(
      url,
      { method: request.method, headers, ...(url.protocol === 'https:' ? { rejectUnauthorized: !insecure } : {}) },
      (incoming) => {
        const chunks: Buffer[] = []
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
        incoming.on('end', () => {
          const headers: Record<string, string> = {}
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
          }
          resolve({
            status: incoming.statusCode ?? 0,
            headers,
            body: parseBody(Buffer.concat(chunks).toString('utf8'), headers['content-type']),
            trace_id: headers[TRACE_HEADER.toLowerCase()] ?? null,
          })
        })
        incoming.on('error', reject)
      },
    )
    outgoing.on('error', (error) => reject(sendError(url, error)))
    outgoing.end(request.body ?? undefined)
  })
}

/** Node's TLS verification codes (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID...). */
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/

/** The server was reached but its certificate refused: "is it running?" would send the user the wrong way. */
function sendError(url: URL, error: NodeJS.ErrnoException): CliError {
  if (url.protocol === 'https:' && CERTIFICATE_ERROR.test(error.code ?? '')) {
    return new CliError('E_REPLAY_TLS', `The certificate of ${url.origin} was refused: ${error.message} (${error.code})`, {
      hint: 'trust its CA with NODE_EXTRA_CA_CERTS=<ca.pem>, or pass --insecure to skip the check (development servers only)',
    })
  }
  if (url.protocol === 'https:' && error.code?.startsWith('ERR_SSL_')) {
    return new CliError('E_REPLAY_TLS', `No TLS handshake with ${url.origin}: ${error.message}`, { hint: 'does the server speak plain http? Use an http:// --url without --https' })
  }
  return new CliError('E_REPLAY_SEND', `Cannot reach ${url.origin}: ${error.message}`, { hint: 'is the server running? (svc serve)' })
}

export function parseBody(text: string, type: string | undefined): unknown {
  if (text === '') return null
  if (type?.includes('json')) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}
