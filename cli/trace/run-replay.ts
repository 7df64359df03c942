/** The replay flow shared by log:replay, api:why (--fix, --diff, --force) and fix. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { REDACTED, type TraceRecord } from '../../framework/trace/index.ts'
import type { ReplayJson, ResponseDiffJson } from '../contract/traces.ts'
import { CliError } from '../output/cli-error.ts'
import type { ArgsDef } from '../command/define.ts'
import type { CommandIO } from '../output/io.ts'
import { colors, printLine, printNote, type Colors } from '../output/print.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { compareResponses } from './compare.ts'
import { replayMarker, replaySigner } from './replay-marker.ts'
import { commandLine, editRequest, fieldsAddedBySet, findRedacted, prepareRequest, REPLAY_HEADER, ReplayTarget } from './replay.ts'
import type { RecordedCase } from './regression-api.ts'
import { formatMs, statusColor } from './summary.ts'

export interface ReplayOptions {
  url?: string
  https?: boolean
  insecure?: boolean
  sets?: string[]
  as?: string
  /** `Name: value` pairs added to (or replacing) the request's headers. */
  header?: string[]
  edit?: boolean
  force?: boolean
  format?: string
  diff?: boolean
  test?: boolean
  /** Send `[REDACTED]` where the trace kept no value (a body field, a query parameter) instead of refusing. */
  'send-redacted'?: boolean
  /** Send a request whose bearer token was redacted without one, instead of signing in as the user who made it. */
  anonymous?: boolean
}

export const replayArgs = {
  url: { type: 'string', description: 'Send to this server (http://host:port) instead of the app in process', valueHint: 'url' },
  https: { type: 'boolean', description: 'Use https' },
  insecure: { type: 'boolean', description: 'With https: accept any certificate' },
  set: { type: 'string', description: 'Change a body field before sending (dotted paths)', valueHint: 'field=value', multiple: true },
  as: { type: 'string', description: 'Sign a fresh access token for this user (development only; by default the user who made the request)', valueHint: 'email' },
  anonymous: { type: 'boolean', description: 'Send without a token, not as the user who made the request (whose token the trace does not keep)' },
  header: { type: 'string', description: 'Add or replace a request header (Authorization: Bearer <token>)', valueHint: 'name: value', multiple: true },
  edit: { type: 'boolean', description: 'Edit the request in $EDITOR before sending' },
  force: { type: 'boolean', description: 'Send even in production (side effects happen)' },
  format: { type: 'enum', description: 'Print the request as a command line instead of sending', options: ['curl', 'httpie'] },
  diff: { type: 'boolean', description: 'Compare the new response with the recorded one' },
  test: { type: 'boolean', description: 'Write a vitest regression test for this request' },
  'send-redacted': { type: 'boolean', description: 'Send [REDACTED] for the body fields and query parameters the trace does not keep, instead of refusing' },
} as const satisfies ArgsDef

export async function runReplay(project: Project, record: TraceRecord, options: ReplayOptions): Promise<ReplayJson> {
  const config = loadConfig(project)
  const signer = replaySigner(project)
  const prepared = prepareRequest(record, { url: options.url, https: options.https, sets: options.sets, signer })
  let { request } = prepared
  let redacted = prepared.redacted
  if (options.anonymous === true && options.as !== undefined) throw new CliError('E_BAD_OPTION', '--anonymous sends no token and --as signs one: pass one of them')
  const target = new ReplayTarget(project, { url: options.url, https: options.https, insecure: options.insecure })
  const production = config.env === 'production'
  try {
    const as = options.as ?? (options.anonymous === true || !redacted.includes('header authorization') ? undefined : await recordedUser(target, record, options.test === true, production))
    if (as !== undefined) {
      request.headers.authorization = `Bearer ${await target.tokenFor({ email: as })}`
      redacted = redacted.filter((place) => place !== 'header authorization')
    }
    for (const header of options.header ?? []) {
      const [name, value] = parseHeader(header)
      request.headers[name] = value
      redacted = redacted.filter((place) => place !== `header ${name}`)
    }
    if (options.edit) {
      request = editRequest(request, project.env)
      // Signed again for the request as edited: the marker is bound to its method, path and query. One the user
      // deleted stays deleted (the request is then sent as their own).
      if (request.headers[REPLAY_HEADER] !== undefined) {
        try {
          request.headers[REPLAY_HEADER] = replayMarker(signer, record.trace_id, request)
        } catch {
          // an edited url that is no url: sending it says so
        }
      }
    }
    // What --set and --edit filled in is no longer a placeholder; a header given with --edit is no longer missing.
    redacted = [...redacted.filter((place) => place.startsWith('header ') && request.headers[place.slice('header '.length)] === undefined), ...placeholdersIn(request)]
    const dryRun = options.format !== undefined || (production && options.force !== true)
    if (!dryRun && options['send-redacted'] !== true) refuseToSendPlaceholders(record, redacted)
    const json: ReplayJson = {
      trace_id: record.trace_id,
      target: target.name,
      dry_run: dryRun,
      request,
      redacted,
      response: null,
      diff: null,
      command: options.format === undefined ? null : commandLine(request, options.format as 'curl' | 'httpie', options.insecure === true),
      test_file: null,
      test_warnings: [],
      signed_in_as: as ?? null,
    }
    if (!dryRun) {
      json.response = await target.send(request, record.ip ?? '127.0.0.1')
      json.diff = compareResponses(
        { status: record.response.status, headers: record.response.headers, body: record.response.body.content, truncated: record.response.body.truncated },
        json.response,
      )
    }
    if (options.test) {
      const given = (options.header ?? []).map((header) => parseHeader(header)[0])
      json.test_file = writeRegressionTest(project, record, request, as, given)
      json.test_warnings = testWarnings(json, given.filter((name) => name !== 'authorization' || as === undefined))
    }
    return json
  } finally {
    await target.close()
  }
}

/** Where the request about to be sent still carries `[REDACTED]`: `body.password`, `body` (a text body), `query token`. */
function placeholdersIn(request: ReplayJson['request']): string[] {
  const places: string[] = []
  if (request.body !== null) {
    let body: unknown
    try {
      body = JSON.parse(request.body)
    } catch {
      body = request.body
    }
    if (typeof body === 'string') {
      if (body.includes(REDACTED)) places.push('body')
    } else findRedacted(body, 'body', places)
  }
  let url: URL
  try {
    url = new URL(request.url)
  } catch {
    return places // an edited url that is no url: sending it says so
  }
  for (const [name, value] of url.searchParams) if (value === REDACTED) places.push(`query ${name}`)
  return places
}

/**
 * A placeholder for a password or a token is never what was sent: the app
 * answers it as a wrong credential (a login replayed so is a failed attempt,
 * and five lock the account). Refused unless the values are given
 * (--set, --edit) or the placeholder is asked for (--send-redacted).
 */
function refuseToSendPlaceholders(record: TraceRecord, redacted: string[]): void {
  const placeholders = redacted.filter((place) => !place.startsWith('header '))
  if (placeholders.length === 0) return
  const fields = placeholders.filter((place) => place.startsWith('body.')).map((place) => place.slice('body.'.length))
  const give = [
    ...(fields.length === 0 ? [] : [fields.map((field) => `--set ${field}=<value>`).join(' ')]),
    ...(fields.length < placeholders.length ? ['--edit (for a query parameter or a text body)'] : []),
  ]
  throw new CliError(
    'E_REPLAY_REDACTED',
    `${record.trace_id} would be sent with ${REDACTED} in place of ${placeholders.join(', ')}: the trace does not keep these values, and the app would answer the placeholder as a wrong credential (a replayed login counts as a failed attempt and can lock the account)`,
    { hint: `give the values: ${give.join(', or ')}; or pass --send-redacted to send ${REDACTED} anyway` },
  )
}

/** `Name: value` (or `name=value`) as a lower-case header name and its value. */
export function parseHeader(text: string): [string, string] {
  const match = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*[:=]\s*(.*)$/.exec(text)
  if (match === null) throw new CliError('E_BAD_OPTION', `--header takes "Name: value", got "${text}"`)
  return [match[1]!.toLowerCase(), match[2]!.trim()]
}

/**
 * Whom a request whose bearer token was redacted is sent as: the user it was
 * recorded for, as `--as` would sign (a replay without the token is answered
 * 401, which says nothing of the failure being debugged). Undefined when the
 * request signed in as nobody (its token was refused: it goes without one, as
 * it came), in production (no token is signed there: it goes without one, as
 * before), and when that user is no longer in the app's database (it goes
 * without one; the note on stderr lists the header as not replayed). A test is written only with a
 * user who can sign in: an error saying what to pass.
 */
async function recordedUser(target: ReplayTarget, record: TraceRecord, test: boolean, production: boolean): Promise<string | undefined> {
  if (record.user_id === null || (production && !test)) return undefined
  const email = await target.emailOf(record.user_id)
  if (email === undefined && test) {
    throw new CliError('E_TEST_NEEDS_USER', `${record.trace_id} was made by user ${record.user_id}, who is not in the app's database: a test replaying it could not sign in`, {
      hint: 'pass --as=<email> to sign in as a user of the app\'s database inside the test',
    })
  }
  return email
}

/** What would make the written test fail whatever the code does, said when it is written. */
function testWarnings(json: ReplayJson, left: string[]): string[] {
  const warnings: string[] = []
  const secrets = json.redacted.filter((place) => place !== 'header authorization')
  if (json.redacted.includes('header authorization')) {
    warnings.push('The recorded bearer token was redacted and no user was signed in: the test sends the request without a token (its answer may differ from a refused token\'s; pass --as=<email> to sign in).')
  }
  if (secrets.length > 0) warnings.push(`The test sends ${REDACTED} for ${secrets.join(', ')} (redacted in the trace): edit the test file to give real values, or it cannot pass.`)
  if (left.length > 0) warnings.push(`The test leaves out the headers given with --header (${left.join(', ')}): their values may be secrets; add them to the test file if it needs them.`)
  if (json.diff?.changed) {
    warnings.push(
      'Replayed now, the request is already answered differently from the recording (see the diff): by the code, the data or the configuration since, or by what the trace does not keep. The test fails until it is answered as recorded.',
    )
  }
  return warnings
}

function writeRegressionTest(project: Project, record: TraceRecord, request: ReplayJson['request'], as: string | undefined, left: string[]): string {
  const url = new URL(request.url)
  const slug = `${record.method}-${record.path}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60)
  const file = join(project.root, 'tests', 'regression', `${slug}-${record.trace_id.slice(-8)}.test.ts`)
  const headers = { ...request.headers }
  delete headers[REPLAY_HEADER]
  if (as !== undefined) delete headers.authorization
  // Headers given with --header stay out of a file that is committed: a token among them would be.
  for (const name of left) delete headers[name]
  const recorded: RecordedCase = {
    trace_id: record.trace_id,
    request: { method: request.method, path: `${url.pathname}${url.search}`, headers, body: request.body },
    response: {
      status: record.response.status,
      headers: record.response.headers,
      body: record.response.body.content,
      truncated: record.response.body.truncated,
    },
    ...(as === undefined ? {} : { as }),
  }
  const depth = relative(dirname(file), project.root).split(/[\\/]/).map(() => '..').join('/')
  const title = `${record.method} ${url.pathname}${url.search} answers ${record.response.status} as recorded in ${record.trace_id}`
  const source = `/**
 * Regression test written by \`svc log:replay ${record.trace_id} --test\` (${new Date().toISOString()}).
 * Replays the recorded request against the app built from the current code
 * and compares the response with the recorded one; ids, timestamps, tokens
 * and trace ids may differ (the volatile-field rule in svc's docs/traces.md).
 */
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { replayRecorded, type RecordedCase } from 'svc/regression'

const recorded: RecordedCase = ${JSON.stringify(recorded, null, 2)}

it(${JSON.stringify(title)}, async () => {
  const diff = await replayRecorded(fileURLToPath(new URL(${JSON.stringify(`${depth}/`)}, import.meta.url)), recorded)
  expect(diff.changed, JSON.stringify(diff, null, 2)).toBe(false)
})
`
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, source)
  return relative(project.root, file).split('\\').join('/')
}

/** On stderr: the `--set` fields the recorded body did not have, added rather than changed (a typo is one). */
export function printSetNotes(io: CommandIO, record: TraceRecord, sets: readonly string[] | undefined): void {
  const added = fieldsAddedBySet(record.body.content, sets ?? [])
  if (added.length === 0) return
  const body = record.body.content
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : []
  printNote(io, `--set ${added.join(', ')}: the recorded body has no such field, so it is added${fields.length > 0 ? ` (its fields: ${fields.join(', ')})` : ''}.`)
}

/** On stderr, as every note: stdout keeps the command's output. `as`: the `--as` given, which needs no note. */
export function printCredentialNotes(io: CommandIO, json: Pick<ReplayJson, 'redacted' | 'signed_in_as'>, as: string | undefined): void {
  if (json.signed_in_as !== null && as === undefined) {
    printNote(io, `Signed in as ${json.signed_in_as}, who made the request (the trace does not keep its token). --anonymous sends it without one, --as=<email> as someone else.`)
  }
  if (json.redacted.length > 0) {
    printNote(io, `Not replayed as recorded (redacted in the trace): ${json.redacted.join(', ')}. Use --as=<email> for a token, --set for body fields.`)
  }
}

export function printReplay(io: CommandIO, json: ReplayJson, options: { diff?: boolean; as?: string }): void {
  const color = colors(io)
  printCredentialNotes(io, json, options.as)
  if (json.command !== null) return printLine(io, json.command)
  if (json.dry_run) {
    printLine(io, color.yellow('Dry run (APP_ENV=production): nothing sent. --force sends it, with its side effects.'))
    printLine(io, `${json.request.method} ${json.request.url}`)
    for (const [name, value] of Object.entries(json.request.headers)) printLine(io, `  ${name}: ${value}`)
    if (json.request.body !== null) printLine(io, `\n${json.request.body}`)
  }
  const response = json.response
  if (response !== null) {
    printLine(
      io,
      `${json.request.method} ${json.request.url} ${color.dim(`(${json.target})`)} => ${statusColor(response.status, color)(String(response.status))} in ${formatMs(response.duration_ms)}${response.trace_id ? color.dim(`  trace ${response.trace_id}`) : ''}`,
    )
    if (!options.diff) printLine(io, typeof response.body === 'string' ? response.body : JSON.stringify(response.body, null, 2))
  }
  // A test written for a request already answered differently: its warning points at this diff.
  if (json.diff !== null && (options.diff || (json.test_file !== null && json.diff.changed))) printLine(io, diffText(json.diff, color))
  if (json.test_file !== null) printLine(io, `Wrote ${json.test_file} (run it with npx vitest run ${json.test_file})`)
  for (const warning of json.test_warnings) printNote(io, warning)
}

export function diffText(diff: ResponseDiffJson, color: Colors): string {
  if (!diff.changed) return color.green('Same response as recorded (volatile fields ignored).')
  const lines = [color.yellow('Response differs from the recorded one:')]
  if (diff.status !== null) lines.push(`  status: ${color.red(String(diff.status.recorded))} => ${color.green(String(diff.status.current))}`)
  for (const change of diff.headers) lines.push(`  header ${change.name}: ${color.red(String(change.recorded))} => ${color.green(String(change.current))}`)
  for (const change of diff.body) {
    lines.push(`  body ${change.path || '(whole)'}: ${color.red(JSON.stringify(change.recorded))} => ${color.green(JSON.stringify(change.current))}`)
  }
  return lines.join('\n')
}
