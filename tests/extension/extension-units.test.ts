/**
 * The extension's modules that need no VS Code: which command starts the
 * server, how routes are grouped, how a route becomes a trace filter, how
 * traces read, which webview messages are accepted, and the nonce.
 */
import { describe, expect, it } from 'vitest'
import type { RouteJson } from '../../cli/contract/routes.ts'
import { isWebviewMessage } from '../../extension/src/messages.ts'
import { groupRoutes, routeGroupOf } from '../../extension/src/route-groups.ts'
import { pathGlob } from '../../framework/router/path-grammar.ts'
import { resolveServerCommand } from '../../extension/src/server-command.ts'
import { createNonce, traceDetailHtml } from '../../extension/src/trace-detail-html.ts'
import { formatAge, formatDuration, statusTone, traceDescription } from '../../extension/src/trace-format.ts'

const route = (method: RouteJson['method'], path: string): RouteJson => ({ method, path, params: [], middleware: [], handler: 'h', source: null, group: null, version: null, schemas: { body: false, query: false, response: false } })

describe('server command', () => {
  it('prefers the setting, then the workspace install, then svc on the PATH', () => {
    expect(resolveServerCommand('/w', '/opt/svc/dist/cli/bin.js', '/usr/bin/node')).toEqual({ command: '/usr/bin/node', args: ['/opt/svc/dist/cli/bin.js', 'lsp', '--stdio'], origin: 'setting' })
    expect(resolveServerCommand('/w', './tools/svc')).toEqual({ command: '/w/tools/svc', args: ['lsp', '--stdio'], origin: 'setting' })
    expect(resolveServerCommand('/w', '${workspaceFolder}/dist/cli/bin.js')).toEqual({ command: 'node', args: ['/w/dist/cli/bin.js', 'lsp', '--stdio'], origin: 'setting' })
    expect(resolveServerCommand('/w', 'svc-dev')).toEqual({ command: 'svc-dev', args: ['lsp', '--stdio'], origin: 'setting' })
    expect(resolveServerCommand('/w', '', 'node', (path) => path === '/w/node_modules/.bin/svc')).toEqual({ command: '/w/node_modules/.bin/svc', args: ['lsp', '--stdio'], origin: 'workspace' })
    expect(resolveServerCommand('/w', '  ', 'node', () => false)).toEqual({ command: 'svc', args: ['lsp', '--stdio'], origin: 'path' })
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
    expect(pathGlob('/api/v1/posts/archive/{year?}')).toBe('/api/v1/posts/archive*')
  })
})

describe('trace formatting', () => {
  it('colours by status class and reads durations and ages', () => {
    expect([200, 302, 404, 503].map(statusTone)).toEqual(['ok', 'redirect', 'client-error', 'server-error'])
    expect(formatDuration(0.25)).toBe('0.25 ms')
    expect(formatDuration(12.4)).toBe('12 ms')
    expect(formatDuration(1530)).toBe('1.53 s')
    const now = Date.parse('2026-01-01T12:00:00Z')
    expect(formatAge('2026-01-01T11:59:50Z', now)).toBe('10s ago')
    expect(formatAge('2026-01-01T11:00:00Z', now)).toBe('1h ago')
    expect(formatAge('2025-12-30T12:00:00Z', now)).toBe('2d ago')
    expect(
      traceDescription({ trace_id: 't', method: 'GET', path: '/', query: '', route: '/', status_code: 500, duration_ms: 3.2, ip: null, timestamp: '2026-01-01T11:59:00Z', user_id: null, exception: 'TypeError', error_message: 'x is undefined', query_count: 6, n_plus_one: true, replay_of: null }, now),
    ).toBe('3 ms · 1m ago · TypeError · N+1')
  })
})

describe('webview messages and page', () => {
  it('accepts only the page messages it knows, well formed', () => {
    expect(isWebviewMessage({ type: 'ready' })).toBe(true)
    expect(isWebviewMessage({ type: 'replay', traceId: 'svc_1' })).toBe(true)
    expect(isWebviewMessage({ type: 'replay' })).toBe(false)
    expect(isWebviewMessage({ type: 'openSource', file: 'a.ts', line: 1, column: 2 })).toBe(true)
    expect(isWebviewMessage({ type: 'openSource', file: 'a.ts', line: '1', column: 2 })).toBe(false)
    expect(isWebviewMessage({ type: 'runShell', command: 'rm -rf /' })).toBe(false)
    expect(isWebviewMessage('replay')).toBe(false)
    expect(isWebviewMessage(null)).toBe(false)
  })

  it('makes a fresh 192-bit nonce each time and puts it in the CSP and the script tag only', () => {
    const nonces = new Set(Array.from({ length: 50 }, createNonce))
    expect(nonces.size).toBe(50)
    for (const nonce of nonces) expect(Buffer.from(nonce, 'base64')).toHaveLength(24)
    const nonce = createNonce()
    const html = traceDetailHtml({ cspSource: 'vscode-webview://x', nonce, scriptUri: 'vscode-webview://x/media/trace-detail.js', styleUri: 'vscode-webview://x/media/trace-detail.css', title: 'T <1>' })
    expect(html).toContain(`content="default-src 'none'; style-src vscode-webview://x; img-src vscode-webview://x data:; font-src vscode-webview://x; script-src 'nonce-${nonce}'"`)
    expect(html.match(/<script /g)).toHaveLength(1)
    expect(html).toContain(`<script nonce="${nonce}" src="vscode-webview://x/media/trace-detail.js"></script>`)
    expect(html).toContain('<title>T &lt;1></title>')
  })
})
