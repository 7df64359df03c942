/**
 * Layer 3: the trace detail page in Chromium (Playwright), exactly as the
 * extension serves it (traceDetailHtml + the bundled media/trace-detail.js),
 * with `acquireVsCodeApi` stubbed: it renders a recorded trace, every button
 * posts its tagged message, replay results render, and the CSP blocks
 * scripts without the nonce.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { build } from 'esbuild'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReplayJson, TraceRecordJson } from '../../cli/contract/index.ts'
import { contractValidator } from '../helpers/contract.ts'
import { createNonce, traceDetailHtml } from '../../extension/src/trace-detail-html.ts'
import { REPO_ROOT } from '../helpers/cli.ts'
import { chromiumPath, CHROMIUM_ARGS } from './browser.ts'

const trace = JSON.parse(readFileSync(new URL('./fixtures/trace-500.json', import.meta.url), 'utf8')) as TraceRecordJson
const media = join(REPO_ROOT, 'extension', 'media')
const results = join(REPO_ROOT, 'test-results')

let dir: string
let browser: Browser
let page: Page
const problems: string[] = []

beforeAll(async () => {
  // The page script bundled as extension/scripts/build.mjs bundles it for the .vsix, into a folder of this test's own.
  dir = mkdtempSync(join(tmpdir(), 'svc-webview-'))
  await build({ entryPoints: [join(REPO_ROOT, 'extension', 'webview', 'trace-detail.ts')], outfile: join(dir, 'trace-detail.js'), bundle: true, platform: 'browser', format: 'iife', target: 'es2020', logLevel: 'silent' })
  copyFileSync(join(media, 'trace-detail.css'), join(dir, 'trace-detail.css'))
  const html = traceDetailHtml({
    cspSource: 'file:',
    nonce: createNonce(),
    scriptUri: pathToFileURL(join(dir, 'trace-detail.js')).href,
    styleUri: pathToFileURL(join(dir, 'trace-detail.css')).href,
    title: 'Trace',
  })
  writeFileSync(join(dir, 'index.html'), html)
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS })
  page = await browser.newPage({ viewport: { width: 1100, height: 1400 } })
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
  await page.addInitScript(() => {
    const posted: unknown[] = []
    Object.assign(window, {
      __posted: posted,
      acquireVsCodeApi: () => ({
        postMessage: (message: unknown) => posted.push(message),
        getState: () => undefined,
        setState: (state: unknown) => Object.assign(window, { __state: state }),
      }),
    })
  })
  await page.goto(pathToFileURL(join(dir, 'index.html')).href)
  await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'))
  await deliver((value) => ({ type: 'trace', trace: value }), trace)
  await page.waitForSelector('#status')
}, 60_000)

afterAll(async () => {
  await browser?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const posted = () => page.evaluate(() => (window as unknown as { __posted: Array<Record<string, unknown>> }).__posted)

/**
 * Posts a message to the page and resolves once the page has handled it:
 * `window.postMessage` delivers asynchronously, and listeners run in the order
 * they were added, so a listener added now runs after the page's own.
 */
async function deliver<T>(build: (value: T) => unknown, value?: T): Promise<void> {
  const message = build(value as T)
  await page.evaluate(
    (data) =>
      new Promise<void>((resolve) => {
        window.addEventListener('message', () => resolve(), { once: true })
        window.postMessage(data, '*')
      }),
    message as never,
  )
}
const lastPosted = async () => (await posted()).at(-1)

describe('trace detail webview', () => {
  it('uses a fixture that is a valid trace record', () => {
    const validate = contractValidator('TraceRecordJson')
    expect(validate(trace), JSON.stringify(validate.errors)).toBe(true)
  })

  it('renders the request, response, SQL with timing bars, middleware timeline, N+1 and the exception with its stack', async () => {
    expect(await page.textContent('h1')).toBe('POST /api/v1/posts?draft=1 500')
    expect(await page.getAttribute('#status', 'class')).toContain('status-5xx')
    expect(await page.textContent('#trace-id')).toBe(trace.trace_id)
    expect(await page.textContent('#sql h2')).toBe('SQL (7 queries, 5.2 ms)')
    expect(await page.locator('#sql li.query').count()).toBe(7)
    // Timing bars are placed on the request's time scale (start_ms / duration_ms of 12.3 ms).
    const lastBar = await page.locator('#sql li.query').last().locator('.fill').evaluate((element) => ({ left: (element as HTMLElement).style.left, width: (element as HTMLElement).style.width, tone: element.className }))
    expect(parseFloat(lastBar.left)).toBeCloseTo((6.0 / 12.3) * 100, 1)
    expect(parseFloat(lastBar.width)).toBeCloseTo((2.1 / 12.3) * 100, 1)
    expect(lastBar.tone).toContain('tone-error')
    expect(await page.textContent('#sql')).toContain('NOT NULL constraint failed')
    expect(await page.locator('#middleware li').allTextContents()).toEqual(['cors+0.10 ms · 11.6 ms', 'auth+0.40 ms · 11.0 ms', 'throttle:10,1+1.0 ms · 10.2 ms'])
    expect(await page.textContent('#n-plus-one')).toContain('5× 2.3 ms select * from tags where post_id = ?')
    expect(await page.textContent('#exception .exception')).toBe("TypeError: Cannot read properties of undefined (reading 'slug') (500)")
    expect(await page.textContent('#request')).toContain('[REDACTED]')
    // Trace content is text, never markup.
    expect(await page.textContent('#request pre.body')).toContain('Hello <script>alert(1)</script>')
    expect(await page.locator('#request script').count()).toBe(0)
    expect(await page.textContent('#response h2')).toBe('Response 500')
    // The stack links application frames only (not node_modules).
    expect(await page.locator('#exception .stack a.source-link').allTextContents()).toEqual(['/srv/blog/app/controllers/posts.ts:61:18', '/srv/blog/app/middleware/auth.ts:12:5'])
    // The state is kept for when the panel is restored.
    expect(await page.evaluate(() => (window as unknown as { __state: { trace: { trace_id: string } } }).__state.trace.trace_id)).toBe(trace.trace_id)
    mkdirSync(results, { recursive: true })
    await page.screenshot({ path: join(results, 'webview-trace-detail.png'), fullPage: true })
  })

  it('posts a message tagged by type for each button and source link', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['button[data-action="replay"]', { type: 'replay', traceId: trace.trace_id }],
      ['button[data-action="replayDiff"]', { type: 'replayDiff', traceId: trace.trace_id }],
      ['button[data-action="copyCurl"]', { type: 'copyCurl', traceId: trace.trace_id }],
      ['button[data-action="createTest"]', { type: 'createTest', traceId: trace.trace_id }],
      ['#exception p a.source-link', { type: 'openSource', file: 'app/controllers/posts.ts', line: 61, column: 18 }],
      ['#exception .stack a.source-link >> nth=0', { type: 'openSource', file: '/srv/blog/app/controllers/posts.ts', line: 61, column: 18 }],
    ]
    for (const [selector, message] of cases) {
      const before = (await posted()).length
      await page.click(selector)
      expect(await posted()).toHaveLength(before + 1)
      expect(await lastPosted(), selector).toEqual(message)
    }
  })

  it('shows the replay result: new status and the diff summary; a dry run; the curl command; errors', async () => {
    const replay: ReplayJson = {
      trace_id: trace.trace_id,
      target: 'in-process',
      dry_run: false,
      request: { method: 'POST', url: 'http://localhost/api/v1/posts?draft=1', headers: {}, body: '{}' },
      redacted: ['authorization'],
      response: { status: 201, headers: {}, body: {}, duration_ms: 4.2, trace_id: 'svc_new' },
      diff: { changed: true, status: { recorded: 500, current: 201 }, headers: [], body: [{ path: 'data.id', recorded: null, current: 3 }] },
      command: null,
      test_file: null,
    }
    await deliver(() => ({ type: 'busy', action: 'replay' }))
    expect(await page.locator('button[data-action]:disabled').count()).toBe(4)
    await deliver((value) => ({ type: 'replayResult', replay: value }), replay)
    expect(await page.textContent('#replay-status')).toBe('201')
    expect(await page.textContent('#replay-outcome')).toContain('(recorded 500)')
    expect(await page.textContent('#replay-diff')).toBe('Changed: status, 1 body field(s)')
    expect(await page.locator('button[data-action]:disabled').count()).toBe(0)

    await deliver((value) => ({ type: 'replayResult', replay: { ...value, dry_run: true, response: null, diff: null } }), replay)
    expect(await page.textContent('#replay-outcome')).toBe('Dry run (nothing sent): POST http://localhost/api/v1/posts?draft=1')

    await deliver((value) => ({ type: 'replayResult', replay: { ...value, dry_run: true, response: null, diff: null, command: "curl -X POST 'http://localhost/api/v1/posts'" } }), replay)
    expect(await page.textContent('#result pre')).toBe("curl -X POST 'http://localhost/api/v1/posts'")

    await deliver(() => ({ type: 'error', message: 'No trace svc_x' }))
    expect(await page.textContent('#replay-error')).toBe('No trace svc_x')
  })

  it('runs only scripts carrying the nonce (Content-Security-Policy)', async () => {
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content')
    expect(csp).toMatch(/^default-src 'none'; /)
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]{32}'/)
    await page.evaluate(() => {
      const script = document.createElement('script')
      script.textContent = 'window.__inline = true'
      document.body.append(script)
    })
    expect(await page.evaluate(() => (window as unknown as { __inline?: boolean }).__inline)).toBeUndefined()
    expect(problems).toEqual([])
  })
})
