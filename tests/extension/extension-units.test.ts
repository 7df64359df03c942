/**
 * The extension's modules that need no VS Code: which command starts the
 * server (and what was tried when none is there), how routes are grouped,
 * how a route becomes a trace filter, how traces read and filter as you
 * type, environments, which page messages are accepted, and the nonce.
 */
import { describe, expect, it } from 'vitest'
import type { RouteJson } from '../../cli/contract/routes.ts'
import type { TraceSummaryJson } from '../../cli/contract/traces.ts'
import { activeEnvironment, onEnvironment, readEnvironments } from '../../extension/src/environments.ts'
import { isDashboardWebviewMessage, isRequestWebviewMessage, isTraceWebviewMessage } from '../../extension/src/messages.ts'
import { createNonce, pageHtml } from '../../extension/src/page-html.ts'
import { groupRoutes, routeGroupOf } from '../../extension/src/route-groups.ts'
import { routeCallPosition } from '../../extension/src/route-position.ts'
import { resolveServerCommand, type Lookup } from '../../extension/src/server-command.ts'
import { firstFieldError, formatDuration, matchesText, routeKey, statusColorId, statusTone, traceDescription, traceLabel, tracePickItem } from '../../extension/src/trace-format.ts'
import { formatDate, formatDateTime, formatMinute, formatTime } from '../../extension/src/time-format.ts'
import { pathGlob } from '../../framework/router/path-grammar.ts'

const route = (method: RouteJson['method'], path: string): RouteJson => ({ method, path, params: [], middleware: [], handler: 'h', source: null, group: null, version: null, schemas: { body: false, query: false, response: false } })

function lookup(files: Record<string, string | true>, path = '/usr/bin:/bin'): Lookup {
  return {
    exists: (file) => file in files,
    executable: (file) => file in files,
    readFile: (file) => (typeof files[file] === 'string' ? (files[file] as string) : undefined),
    env: { PATH: path },
    platform: 'linux',
  }
}

describe('server command', () => {
  it('prefers the setting, then the workspace install, then the package bin, then svc on the PATH; --stdio is left to the transport', () => {
    const none = lookup({})
    expect(resolveServerCommand('/w', '/opt/svc/dist/cli/bin.js', '/usr/bin/node', none)).toEqual({ command: '/usr/bin/node', args: ['/opt/svc/dist/cli/bin.js', 'lsp'], origin: 'setting' })
    expect(resolveServerCommand('/w', './tools/svc', 'node', none)).toEqual({ command: '/w/tools/svc', args: ['lsp'], origin: 'setting' })
    expect(resolveServerCommand('/w', '${workspaceFolder}/dist/cli/bin.js', 'node', none)).toEqual({ command: 'node', args: ['/w/dist/cli/bin.js', 'lsp'], origin: 'setting' })
    expect(resolveServerCommand('/w', 'svc-dev', 'node', none)).toEqual({ command: 'svc-dev', args: ['lsp'], origin: 'setting' })
    expect(resolveServerCommand('/w', '', 'node', lookup({ '/w/node_modules/.bin/svc': true }))).toEqual({ command: '/w/node_modules/.bin/svc', args: ['lsp'], origin: 'workspace' })
    // This repo's layout: the package's own bin, run with Node.
    const repo = lookup({ '/w/package.json': JSON.stringify({ name: 'svc', bin: { svc: './dist/cli/bin.js' } }), '/w/dist/cli/bin.js': true })
    expect(resolveServerCommand('/w', '', '/usr/bin/node', repo)).toEqual({ command: '/usr/bin/node', args: ['/w/dist/cli/bin.js', 'lsp'], origin: 'package' })
    expect(resolveServerCommand('/w', '  ', 'node', lookup({ '/usr/local/bin/svc': true }, '/usr/bin:/usr/local/bin'))).toEqual({ command: '/usr/local/bin/svc', args: ['lsp'], origin: 'path' })
  })

  it("runs the workspace's node_modules/.bin/svc with Node when it is not executable (a link to a rebuilt checkout's bin.js)", () => {
    // It was spawned as is: EACCES, and the views said only that the server was not running.
    const notExecutable: Lookup = { ...lookup({}), exists: (file) => file === '/w/node_modules/.bin/svc', executable: () => false }
    expect(resolveServerCommand('/w', '', '/usr/bin/node', notExecutable)).toEqual({ command: '/usr/bin/node', args: ['/w/node_modules/.bin/svc', 'lsp'], origin: 'workspace' })
    expect(resolveServerCommand('/w', '', 'node', { ...notExecutable, platform: 'win32', exists: (file) => file === '/w/node_modules/.bin/svc.cmd' })).toEqual({ command: '/w/node_modules/.bin/svc.cmd', args: ['lsp'], origin: 'workspace' })
  })

  it('says what it tried when there is no svc at all (nothing is spawned)', () => {
    const unbuilt = lookup({ '/w/package.json': JSON.stringify({ bin: { svc: './dist/cli/bin.js' } }) })
    expect(resolveServerCommand('/w', '', 'node', unbuilt)).toEqual({
      missing: true,
      tried: ['/w/node_modules/.bin/svc (not found)', '"bin": { "svc": "./dist/cli/bin.js" } of /w/package.json (/w/dist/cli/bin.js not found: build it first?)', 'svc on the PATH (not found)'],
    })
    expect(resolveServerCommand('/w', '', 'node', lookup({}))).toMatchObject({ missing: true, tried: [expect.any(String), 'a "bin" for svc in /w/package.json (none)', 'svc on the PATH (not found)'] })
  })
})

describe('routes view grouping', () => {
  it('groups by prefix and version, keeping match order', () => {
    expect(routeGroupOf('/api/v1/posts/{id}')).toBe('/api/v1')
    expect(routeGroupOf('/api/v2')).toBe('/api/v2')
    expect(routeGroupOf('/api/auth/login')).toBe('/api/auth')
    expect(routeGroupOf('/health/live')).toBe('/health')
    expect(routeGroupOf('/posts/{id}')).toBe('/posts')
    expect(routeGroupOf('/')).toBe('/')
    const groups = groupRoutes([route('GET', '/health/live'), route('GET', '/api/v1/posts'), route('GET', '/health/ready'), route('POST', '/api/v1/posts'), route('GET', '/')])
    expect(groups.map((group) => [group.label, group.routes.map((r) => `${r.method} ${r.path}`)])).toEqual([
      ['/health', ['GET /health/live', 'GET /health/ready']],
      ['/api/v1', ['GET /api/v1/posts', 'POST /api/v1/posts']],
      ['/', ['GET /']],
    ])
  })

  it('turns a route pattern into the trace path filter', () => {
    expect(pathGlob('/api/v1/posts')).toBe('/api/v1/posts')
    expect(pathGlob('/api/v1/posts/{id}')).toBe('/api/v1/posts/*')
    expect(pathGlob('/api/v1/posts/archive/{year?}')).toBe('/api/v1/posts/archive**')
  })
})

const summary = (overrides: Partial<TraceSummaryJson> = {}): TraceSummaryJson => ({
  trace_id: 'svc_0123456789abcdef',
  method: 'GET',
  path: '/api/v1/posts',
  query: 'page=2',
  route: '/api/v1/posts',
  status_code: 404,
  duration_ms: 3.2,
  ip: null,
  timestamp: new Date(2026, 0, 1, 11, 59, 0).toISOString(),
  user_id: null,
  exception: 'HttpError',
  error_message: 'Post not found',
  errors: null,
  query_count: 6,
  n_plus_one: true,
  replay_of: null,
  unverified_replay_of: null,
  ...overrides,
})

describe('trace formatting', () => {
  it('colours by status class (svc’s contributed theme colours) and reads durations and times', () => {
    expect([200, 302, 404, 503].map(statusTone)).toEqual(['ok', 'redirect', 'client-error', 'server-error'])
    expect([200, 302, 404, 503].map((status) => statusColorId(status))).toEqual(['svc.statusSuccess', 'svc.statusRedirect', 'svc.statusClientError', 'svc.statusServerError'])
    expect(statusColorId(404, true)).toBe('svc.statusClientErrorIcon')
    expect(formatDuration(0.25)).toBe('0.25 ms')
    expect(formatDuration(12.4)).toBe('12 ms')
    expect(formatDuration(1530)).toBe('1.53 s')
    // On the editor's clock (local time): the time today, the date and minute before.
    const local = (...parts: [number, number, number, number, number, number]) => new Date(...parts).toISOString()
    const now = new Date(2026, 0, 1, 12, 0, 0).getTime()
    expect(formatTime(local(2026, 0, 1, 11, 59, 50), now)).toBe('11:59:50')
    expect(formatTime(local(2026, 0, 1, 9, 5, 7), now)).toBe('09:05:07')
    expect(formatTime(local(2025, 11, 30, 12, 0, 0), now)).toBe('2025-12-30 12:00')
  })

  it('writes every time one way, 24-hour numbers, in a given zone for the pages (one helper for the Traces view, the detail, the history, the dashboard)', () => {
    const at = '2026-11-29T22:21:58.000Z'
    const utc = { timeZone: 'UTC' }
    expect(formatDateTime(at, utc)).toBe('2026-11-29 22:21:58')
    expect(formatTime(at, Date.parse('2026-11-29T23:00:00Z'), utc)).toBe('22:21:58')
    expect(formatTime(at, Date.parse('2026-11-30T08:00:00Z'), utc)).toBe('2026-11-29 22:21')
    expect(formatDate(at, utc)).toBe('2026-11-29')
    // The dashboard's axis (buckets of a minute or more): no ":00" seconds on today's times.
    expect(formatMinute(at, Date.parse('2026-11-29T23:00:00Z'), utc)).toBe('22:21')
    expect(formatMinute(at, Date.parse('2026-11-30T08:00:00Z'), utc)).toBe('2026-11-29 22:21')
    // The page is told the extension host's zone: the day and the hour move with it.
    const kolkata = { timeZone: 'Asia/Kolkata' }
    expect(formatDateTime(at, kolkata)).toBe('2026-11-30 03:51:58')
    expect(formatTime(at, Date.parse('2026-11-29T23:00:00Z'), kolkata)).toBe('03:51:58')
    // Midnight is 00, not the 24 of some hour12: false formatters; an unknown zone is the process's own, not an exception.
    expect(formatDateTime('2026-11-30T00:00:05.000Z', utc)).toBe('2026-11-30 00:00:05')
    expect(formatDateTime(at, { timeZone: 'Mars/Olympus' })).toBe(formatDateTime(at))
    // Without a zone: this process's clock, as the Traces view's rows.
    const local = new Date(at)
    const two = (value: number) => String(value).padStart(2, '0')
    expect(formatDateTime(at)).toBe(`${local.getFullYear()}-${two(local.getMonth() + 1)}-${two(local.getDate())} ${two(local.getHours())}:${two(local.getMinutes())}:${two(local.getSeconds())}`)
  })

  it('describes a trace the same however long after the row was rendered (a row is not re-rendered while the editor is idle)', () => {
    // It said "57s ago" for as long as the list did not change, long after the request was a minute old.
    const trace = summary({ timestamp: new Date(2026, 0, 1, 11, 59, 3).toISOString() })
    const rendered = traceDescription(trace, new Date(2026, 0, 1, 12, 0, 0).getTime())
    expect(rendered).toBe('3 ms · 11:59:03 · Post not found · N+1')
    expect(traceDescription(trace, new Date(2026, 0, 1, 12, 10, 0).getTime())).toBe(rendered)
  })

  it('labels with the query string, describes with the error message (not the class), marks replays', () => {
    const now = new Date(2026, 0, 1, 12, 0, 0).getTime()
    expect(traceLabel(summary())).toBe('404 GET /api/v1/posts?page=2')
    expect(traceDescription(summary(), now)).toBe('3 ms · 11:59:00 · Post not found · N+1')
    expect(traceDescription(summary({ error_message: null, n_plus_one: false }), now)).toBe('3 ms · 11:59:00 · HttpError')
    expect(traceDescription(summary({ replay_of: 'svc_1', n_plus_one: false }), now)).toBe('replay · 3 ms · 11:59:00 · Post not found')
    expect(routeKey(summary())).toBe('GET /api/v1/posts')
    expect(routeKey(summary({ route: null }))).toBe('no route matched')
  })

  it("describes a 422 by its first field error, not by the envelope's \"The given data was invalid.\"; other rows as before", () => {
    const now = new Date(2026, 0, 1, 12, 0, 0).getTime()
    const invalid = summary({
      status_code: 422,
      exception: 'ValidationError',
      error_message: 'The given data was invalid.',
      errors: { title: ['The title field is required.', 'The title must be a string.'], body: ['The body field is required.'] },
      n_plus_one: false,
    })
    expect(traceDescription(invalid, now)).toBe('3 ms · 11:59:00 · title: The title field is required.')
    expect(firstFieldError(invalid)).toBe('title: The title field is required.')
    expect(matchesText(invalid, 'title required')).toBe(true)
    // A field with no message is skipped; none at all, or a pinned line saved before svc listed them: the message, as before.
    expect(firstFieldError({ errors: { title: [], body: ['The body field is required.'] } })).toBe('body: The body field is required.')
    expect(traceDescription(summary({ ...invalid, errors: {} }), now)).toBe('3 ms · 11:59:00 · The given data was invalid.')
    const { errors: _dropped, ...older } = invalid
    expect(traceDescription(older as TraceSummaryJson, now)).toBe('3 ms · 11:59:00 · The given data was invalid.')
    expect(traceDescription(summary(), now)).toBe('3 ms · 11:59:00 · Post not found · N+1')
  })

  it('offers a trace in a quick pick with its time and error, not only its id (rows of one route read alike)', () => {
    const now = new Date(2026, 0, 1, 12, 0, 0).getTime()
    // It was "3 ms · svc_0123456789abcdef": two GET /api/v1/posts were told apart by their hex ids only.
    expect(tracePickItem(summary(), now)).toEqual({ label: '404 GET /api/v1/posts?page=2', description: '3 ms · 11:59:00 · Post not found · N+1 · svc_0123456789abcdef', id: 'svc_0123456789abcdef' })
  })

  it('filters as you type: every word in the line, a status class by its digit', () => {
    const trace = summary()
    for (const text of ['', 'posts', 'page=2', '404', '4xx', 'not found', 'GET posts', 'svc_0123', 'httperror']) expect(matchesText(trace, text), text).toBe(true)
    for (const text of ['5xx', '500', 'comments', 'posts 200', 'replay']) expect(matchesText(trace, text), text).toBe(false)
    expect(matchesText(summary({ replay_of: 'svc_1' }), 'replay')).toBe(true)
  })
})

describe('environments', () => {
  it('reads svc.environments (production by flag or name), falls back to svc.baseUrl as "local"', () => {
    expect(readEnvironments([], 'http://127.0.0.1:8080/')).toEqual([{ name: 'local', baseUrl: 'http://127.0.0.1:8080', production: false }])
    const environments = readEnvironments(
      [
        { name: 'local', baseUrl: 'http://127.0.0.1:9000/' },
        { name: 'staging', baseUrl: 'https://staging.example.com' },
        { name: 'prod', baseUrl: 'https://api.example.com' },
        { name: 'live', baseUrl: 'https://live.example.com', production: true },
        { name: 'broken', baseUrl: 'ftp://x' },
        { name: 'local', baseUrl: 'http://duplicate' },
        'nonsense',
      ],
      'http://127.0.0.1:8080',
    )
    expect(environments.map((e) => [e.name, e.baseUrl, e.production])).toEqual([
      ['local', 'http://127.0.0.1:9000', false],
      ['staging', 'https://staging.example.com', false],
      ['prod', 'https://api.example.com', true],
      ['live', 'https://live.example.com', true],
    ])
    expect(activeEnvironment(environments, 'staging').name).toBe('staging')
    expect(activeEnvironment(environments, 'gone').name).toBe('local')
    expect(onEnvironment('http://127.0.0.1:9000/api/v1/posts?page=2', environments[1]!)).toBe('https://staging.example.com/api/v1/posts?page=2')
  })
})

describe('page messages and HTML', () => {
  it('accepts only the page messages it knows, well formed', () => {
    expect(isTraceWebviewMessage({ type: 'ready' })).toBe(true)
    expect(isTraceWebviewMessage({ type: 'action', action: 'replay', traceId: 'svc_1' })).toBe(true)
    expect(isTraceWebviewMessage({ type: 'action', action: 'why', traceId: 'svc_1' })).toBe(true)
    expect(isTraceWebviewMessage({ type: 'action', action: 'rm -rf', traceId: 'svc_1' })).toBe(false)
    expect(isTraceWebviewMessage({ type: 'action', action: 'replay' })).toBe(false)
    expect(isTraceWebviewMessage({ type: 'openSource', file: 'a.ts', line: 1, column: 2 })).toBe(true)
    expect(isTraceWebviewMessage({ type: 'openSource', file: 'a.ts', line: '1', column: 2 })).toBe(false)
    expect(isTraceWebviewMessage({ type: 'openHandler', method: 'GET', route: '/x' })).toBe(true)
    expect(isTraceWebviewMessage({ type: 'runShell', command: 'rm -rf /' })).toBe(false)
    expect(isTraceWebviewMessage('replay')).toBe(false)
    expect(isTraceWebviewMessage(null)).toBe(false)
    const request = { method: 'POST', url: 'http://x/y', headers: [['a', 'b']], body: '{}' }
    expect(isRequestWebviewMessage({ type: 'send', request, environment: 'local' })).toBe(true)
    expect(isRequestWebviewMessage({ type: 'send', request: { ...request, headers: [['a']] }, environment: 'local' })).toBe(false)
    expect(isRequestWebviewMessage({ type: 'send', request: { ...request, headers: { a: 'b' } }, environment: 'local' })).toBe(false)
    expect(isDashboardWebviewMessage({ type: 'refresh', days: 7 })).toBe(true)
    expect(isDashboardWebviewMessage({ type: 'refresh', days: -1 })).toBe(false)
  })

  it('makes a fresh 192-bit nonce each time and puts it in the CSP and the script tag only', () => {
    const nonces = new Set(Array.from({ length: 50 }, createNonce))
    expect(nonces.size).toBe(50)
    for (const nonce of nonces) expect(Buffer.from(nonce as string, 'base64')).toHaveLength(24)
    const nonce = createNonce()
    const html = pageHtml({ cspSource: 'vscode-webview://x', nonce, scriptUri: 'vscode-webview://x/media/trace-detail.js', styleUris: ['vscode-webview://x/media/theme.css', 'vscode-webview://x/media/trace-detail.css'], title: 'T <1>' })
    expect(html).toContain(`content="default-src 'none'; style-src vscode-webview://x; img-src vscode-webview://x data:; font-src vscode-webview://x; script-src 'nonce-${nonce}'"`)
    expect(html.match(/<script /g)).toHaveLength(1)
    expect(html.match(/<link rel="stylesheet"/g)).toHaveLength(2)
    expect(html).toContain(`<script nonce="${nonce}" src="vscode-webview://x/media/trace-detail.js"></script>`)
    expect(html).toContain('<title>T &lt;1></title>')
    expect(html).not.toMatch(/style=|<style/)
  })
})

describe('where a route\'s handler is asked for', () => {
  it('inside the route\'s call on its line, whatever column the route table reports', () => {
    const line = "    r.get('/hello', greetings.hello)"
    // Reported by `route:list` in a project made by `svc new` (a source-mapped column past the end of the line):
    // the click on the route opened routes/api.ts instead of the handler.
    expect(routeCallPosition({ line: 17, column: 91 }, line)).toEqual({ line: 16, character: 4 })
    // A column on the call is kept.
    expect(routeCallPosition({ line: 17, column: 7 }, line)).toEqual({ line: 16, character: 6 })
    expect(routeCallPosition({ line: 17, column: 1 }, line)).toEqual({ line: 16, character: 4 })
    expect(routeCallPosition({ line: 3, column: 5 }, '')).toEqual({ line: 2, character: 4 })
  })
})
