/**
 * Layer 3: the webview pages in Chromium (Playwright), exactly as the
 * extension serves them (pageHtml + the bundled media/<page>.js + the
 * stylesheets), with `acquireVsCodeApi` stubbed:
 *
 * - trace detail: a recorded trace with its links to the code (route,
 *   handler, the line of each SQL statement, the N+1 "5× same query" with
 *   its line), every button's tagged message, replay results, Why?;
 * - request: the editable request, what Send posts, the response with its
 *   trace link, the history, the Authorization picker's answer;
 * - dashboard: tiles, the p50/p95 chart (SVG, one point per bucket), the
 *   error rate per route;
 * - every page: status colours with at least 4.5:1 contrast (computed styles)
 *   under the light, dark and both high-contrast defaults of svc's theme
 *   colours, and the CSP (a script without the nonce does not run).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReplayJson, StatsJson, TopJson, TraceRecordJson, WhyJson } from '../../cli/contract/index.ts'
import type { EditableRequest } from '../../extension/src/messages.ts'
import { createNonce, pageHtml } from '../../extension/src/page-html.ts'
import { formatDateTime } from '../../extension/src/time-format.ts'
import { REPO_ROOT } from '../helpers/cli.ts'
import { contractValidator } from '../helpers/contract.ts'
import { chromiumPath, CHROMIUM_ARGS } from './browser.ts'
import { hueName, measureStatusContrast } from './contrast.ts'

const trace = JSON.parse(readFileSync(new URL('./fixtures/trace-500.json', import.meta.url), 'utf8')) as TraceRecordJson
const media = join(REPO_ROOT, 'extension', 'media')
const results = join(REPO_ROOT, 'test-results')
const PAGES = ['trace-detail', 'request', 'dashboard'] as const
/** The extension host's zone as the pages are told it: +05:30 all year, so that it differs from the browser's (UTC or other) by an odd amount. */
const HOST_TIME_ZONE = 'Asia/Kolkata'
type PageName = (typeof PAGES)[number]

let dir: string
let browser: Browser
const problems: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-webview-'))
  // The page scripts bundled as extension/scripts/build.mjs bundles them for the .vsix, into a folder of this test's own.
  for (const page of PAGES) {
    await build({ entryPoints: [join(REPO_ROOT, 'extension', 'webview', `${page}.ts`)], outfile: join(dir, `${page}.js`), bundle: true, platform: 'browser', format: 'iife', target: 'es2020', logLevel: 'silent' })
    copyFileSync(join(media, `${page}.css`), join(dir, `${page}.css`))
    writeFileSync(
      join(dir, `${page}.html`),
      pageHtml({ cspSource: 'file:', nonce: createNonce(), scriptUri: pathToFileURL(join(dir, `${page}.js`)).href, styleUris: [pathToFileURL(join(dir, 'theme.css')).href, pathToFileURL(join(dir, `${page}.css`)).href], title: page, timeZone: HOST_TIME_ZONE }),
    )
  }
  copyFileSync(join(media, 'theme.css'), join(dir, 'theme.css'))
  mkdirSync(results, { recursive: true })
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Opens a page with `acquireVsCodeApi` stubbed (messages it posts collect in `__posted`), once it said ready. */
async function openPage(name: PageName, viewport = { width: 1100, height: 1400 }): Promise<Page> {
  const page = await browser.newPage({ viewport })
  page.on('pageerror', (error) => problems.push(`${name}: ${error.message}`))
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
  await page.goto(pathToFileURL(join(dir, `${name}.html`)).href)
  await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'))
  return page
}

const posted = (page: Page) => page.evaluate(() => (window as unknown as { __posted: Array<Record<string, unknown>> }).__posted)
const lastPosted = async (page: Page) => (await posted(page)).at(-1)

/**
 * Posts a message to the page and resolves once the page has handled it:
 * `window.postMessage` delivers asynchronously, and listeners run in the order
 * they were added, so a listener added now runs after the page's own.
 */
async function deliver(page: Page, message: unknown): Promise<void> {
  await page.evaluate(
    (data) =>
      new Promise<void>((resolve) => {
        window.addEventListener('message', () => resolve(), { once: true })
        window.postMessage(data, '*')
      }),
    message as never,
  )
}

const ROUTE = { method: 'POST', path: '/api/v1/posts', handler: 'posts.createPost', source: { file: '/srv/blog/routes/api.ts', line: 12, column: 5 } } as const
const ENVIRONMENT = { name: 'local', baseUrl: 'http://127.0.0.1:8080', production: false }
const traceMessage = (overrides: Record<string, unknown> = {}) => ({ type: 'trace', trace, writes: true, route: ROUTE, root: '/srv/blog', pinned: false, environment: ENVIRONMENT, ...overrides })

describe('trace detail page', () => {
  let page: Page
  beforeAll(async () => {
    page = await openPage('trace-detail')
    await deliver(page, traceMessage())
    await page.waitForSelector('#status')
  })

  it('uses a fixture that is a valid trace record', () => {
    const validate = contractValidator('TraceRecordJson')
    expect(validate(trace), JSON.stringify(validate.errors)).toBe(true)
  })

  it('renders the request, response, SQL with timing bars, middleware timeline, N+1 and the exception with its stack', async () => {
    expect(await page.textContent('h1')).toBe('POST /api/v1/posts?draft=1 500')
    expect(await page.getAttribute('#status', 'class')).toContain('status-5xx')
    expect(await page.textContent('#trace-id')).toBe(trace.trace_id)
    expect(await page.textContent('#writes')).toBe('wrote data')
    expect(await page.textContent('#sql h2')).toBe('SQL (7 queries, 5.2 ms)')
    expect(await page.locator('#sql li.query').count()).toBe(7)
    // Timing bars are placed on the request's time scale (start_ms / duration_ms of 12.3 ms).
    const lastBar = await page.locator('#sql li.query').last().locator('.fill').evaluate((element) => ({ left: (element as HTMLElement).style.left, width: (element as HTMLElement).style.width, tone: element.className }))
    expect(parseFloat(lastBar.left)).toBeCloseTo((6.0 / 12.3) * 100, 1)
    expect(parseFloat(lastBar.width)).toBeCloseTo((2.1 / 12.3) * 100, 1)
    expect(lastBar.tone).toContain('tone-error')
    expect(await page.textContent('#sql')).toContain('NOT NULL constraint failed')
    expect(await page.locator('#middleware li').allTextContents()).toEqual(['cors+0.10 ms · 11.6 ms', 'auth+0.40 ms · 11.0 ms', 'throttle:10,1+1.0 ms · 10.2 ms'])
    expect(await page.textContent('#exception .exception')).toBe("TypeError: Cannot read properties of undefined (reading 'slug') (500)")
    expect(await page.textContent('#request')).toContain('[REDACTED]')
    // Trace content is text, never markup.
    expect(await page.textContent('#request pre.body')).toContain('Hello <script>alert(1)</script>')
    expect(await page.locator('#request script').count()).toBe(0)
    expect(await page.textContent('#response h2')).toBe('Response 500')
    // The stack links application frames only (not node_modules), shown relative to the project root.
    expect(await page.locator('#exception .stack a.source-link').allTextContents()).toEqual(['app/controllers/posts.ts:61:18', 'app/middleware/auth.ts:12:5'])
    expect(await page.evaluate(() => (window as unknown as { __state: { message: { trace: { trace_id: string } } } }).__state.message.trace.trace_id)).toBe(trace.trace_id)
  })

  it('writes the time as the Traces view does: 24-hour numbers on the extension host\'s clock, not the browser locale\'s "10:15:00 AM"', async () => {
    // The Traces view showed 22:21:58 and this page 11/29/2026, 10:21:58 PM, in the browser's zone.
    expect(await page.textContent('header .meta')).toContain('12.3 ms · 2026-11-20 15:45:00 · ')
    expect(formatDateTime(trace.timestamp, { timeZone: HOST_TIME_ZONE })).toBe('2026-11-20 15:45:00')
  })

  it('links no frame of svc itself when svc is linked from a checkout (its real path is outside the project and node_modules)', async () => {
    // `svc new` run from a checkout writes "svc": "file:<checkout>": svc's frames are /home/me/svc/dist/..., and were links.
    const linked = await openPage('trace-detail')
    try {
      const [message, appFrame, svcFrame, middlewareFrame] = trace.trace!
      expect(svcFrame).toContain('/node_modules/svc/')
      const stack = [message!, appFrame!, '    at run (/home/me/svc/dist/framework/middleware/compose.js:62:28)', '    at next (file:///home/me/svc/dist/framework/middleware/compose.js:27:34)', middlewareFrame!]
      await deliver(linked, traceMessage({ trace: { ...trace, trace: stack } }))
      await linked.waitForSelector('#exception .stack')
      expect(await linked.locator('#exception .stack a.source-link').allTextContents()).toEqual(['app/controllers/posts.ts:61:18', 'app/middleware/auth.ts:12:5'])
      expect((await linked.locator('#exception .stack .frame.muted').allTextContents()).filter((text) => text.includes('/home/me/svc/'))).toHaveLength(2)
    } finally {
      await linked.close()
    }
  })

  it('says a position in a file changed since the request (stale, from svc log:trace) is the recorded one, and still links it', async () => {
    const changed = await openPage('trace-detail')
    try {
      const location = { ...trace.exception!.location!, stale: true }
      const queries = trace.queries.map((query, i) => (i === 1 && query.source ? { ...query, source: { ...query.source, stale: true } } : query))
      await deliver(changed, traceMessage({ trace: { ...trace, queries, exception: { ...trace.exception!, location } } }))
      await changed.waitForSelector('#exception p a.source-link')
      expect(await changed.textContent('#exception p .stale')).toBe(' (as recorded; the file changed since the request)')
      expect(await changed.locator('#sql li.query .from .stale').count()).toBe(1)
      expect(await changed.textContent('#exception p a.source-link')).toBe('app/controllers/posts.ts:61:18')
    } finally {
      await changed.close()
    }
    // The page as svc usually sends it says nothing of the kind.
    expect(await page.locator('.stale').count()).toBe(0)
  })

  it('shows the events the request emitted: each listener with its time, queued, or its failure as text', async () => {
    expect(await page.textContent('#events h2')).toBe('Events (2)')
    expect(await page.locator('#events li.event .event-name').allTextContents()).toEqual(['PostCreated', 'PostPublished'])
    expect(await page.locator('#events li.event > .row .timing').allTextContents()).toEqual(['+8.2 ms · 1.4 ms', '+9.8 ms · 0.50 ms'])
    expect(await page.locator('#events li.listener').allTextContents()).toEqual(['count-post0.60 ms', 'mail-authorqueued', 'ping-search0.40 msfailed: search index unreachable <b>503</b>'])
    expect(await page.locator('#events li.listener.failed').count()).toBe(1)
    // A listener's message is text, never markup; the event that failed has an error-toned bar on the request's time scale.
    expect(await page.locator('#events b').count()).toBe(0)
    const bars = await page.locator('#events li.event > .track .fill').evaluateAll((fills) => fills.map((fill) => ({ left: (fill as HTMLElement).style.left, tone: fill.className })))
    expect(parseFloat(bars[0]!.left)).toBeCloseTo((8.2 / 12.3) * 100, 1)
    expect(bars.map((bar) => bar.tone.includes('tone-error'))).toEqual([false, true])
  })

  it('says when a trace emitted no event, and reads a saved trace from before events were recorded', async () => {
    const quiet = await openPage('trace-detail')
    try {
      await deliver(quiet, traceMessage({ trace: { ...trace, events: [], events_omitted: 0 } }))
      expect(await quiet.textContent('#events')).toBe('Events (0)No events recorded (an event shows here when emitted with emit(event, c))')
      const { events: _events, events_omitted: _omitted, ...older } = trace
      await deliver(quiet, traceMessage({ trace: older }))
      expect(await quiet.textContent('#events')).toBe('Events (0)No events recorded (an event shows here when emitted with emit(event, c))')
      await deliver(quiet, traceMessage({ trace: { ...trace, events: trace.events.slice(0, 1), events_omitted: 150 } }))
      expect(await quiet.textContent('#events h2')).toBe('Events (151)')
      expect(await quiet.textContent('#events')).toContain('150 more not kept (a trace keeps the first 1)')
    } finally {
      await quiet.close()
    }
  })

  it('says what the record kept of a body: none, only its size, capped at 64 MiB, incomplete or truncated', async () => {
    const bodies = await openPage('trace-detail')
    const requestBody = async (body: Record<string, unknown>) => {
      await deliver(bodies, traceMessage({ trace: { ...trace, body: { content: null, size: 0, truncated: false, ...body } } }))
      return bodies.textContent('#request')
    }
    try {
      expect(await requestBody({})).toContain('No body')
      // A 413's body: its size counted, its text not kept. It used to read "No body".
      const refused = await requestBody({ size: 500011 })
      expect(refused).toContain('Not kept: the trace has only its size (500011 bytes)')
      expect(refused).not.toContain('No body')
      expect(await requestBody({ size: 67108865, capped: true })).toContain('Capped: svc stopped counting at 64 MiB; 67108865 bytes read, the body was at least that')
      expect(await requestBody({ content: '{"title":', size: 65536, incomplete: true })).toContain('Incomplete: the client sent 65536 bytes')
      expect(await requestBody({ content: 'abc', size: 9000, truncated: true })).toContain('Truncated (9000 bytes in all)')
    } finally {
      await bodies.close()
    }
  })

  it('links the trace to the code: route, handler, the line of each statement, the N+1 with its line', async () => {
    expect(await page.textContent('#code-links')).toBe('Route POST /api/v1/posts → handler posts.createPost')
    expect(await page.locator('#sql li.query .from a').allTextContents()).toEqual([
      'app/middleware/auth.ts:9:24',
      ...Array(5).fill('app/controllers/posts.ts:48:30'),
      'app/controllers/posts.ts:58:29',
    ])
    expect(await page.textContent('#n-plus-one .finding')).toBe('5× same query (2.3 ms) select * from tags where post_id = ?from app/controllers/posts.ts:48:30')
    await page.screenshot({ path: join(results, 'webview-trace-detail.png'), fullPage: true })
  })

  it('posts a message tagged by type for each button and link', async () => {
    const action = (name: string) => ({ type: 'action', action: name, traceId: trace.trace_id })
    const cases: Array<[string, Record<string, unknown>]> = [
      ['button[data-action="replay"]', action('replay')],
      ['button[data-action="replayDiff"]', action('replayDiff')],
      ['button[data-action="why"]', action('why')],
      ['button[data-action="replayAs"]', action('replayAs')],
      ['button[data-action="replayOnServer"]', action('replayOnServer')],
      ['button[data-action="editAndSend"]', action('editAndSend')],
      ['button[data-action="copyCurl"]', action('copyCurl')],
      ['button[data-action="createTest"]', action('createTest')],
      ['button[data-action="compare"]', action('compare')],
      ['button[data-action="pin"]', action('pin')],
      ['#exception p a.source-link', { type: 'openSource', file: 'app/controllers/posts.ts', line: 61, column: 18 }],
      ['#exception .stack a.source-link >> nth=0', { type: 'openSource', file: '/srv/blog/app/controllers/posts.ts', line: 61, column: 18 }],
      ['#sql li.query >> nth=1 >> .from a', { type: 'openSource', file: '/srv/blog/app/controllers/posts.ts', line: 48, column: 30 }],
      ['#code-links a.source-link', { type: 'openSource', file: '/srv/blog/routes/api.ts', line: 12, column: 5 }],
      ['#handler-link', { type: 'openHandler', method: 'POST', route: '/api/v1/posts' }],
    ]
    for (const [selector, message] of cases) {
      const before = (await posted(page)).length
      await page.click(selector)
      expect(await posted(page)).toHaveLength(before + 1)
      expect(await lastPosted(page), selector).toEqual(message)
    }
    expect(await page.textContent('button[data-action="replayOnServer"]')).toBe('Replay on local')
  })

  it('shows the replay result with a link to the new trace, the dry run, the curl command, test warnings, errors', async () => {
    const replay: ReplayJson = {
      trace_id: trace.trace_id,
      target: 'in-process',
      dry_run: false,
      request: { method: 'POST', url: 'http://localhost/api/v1/posts?draft=1', headers: {}, body: '{}' },
      redacted: ['header authorization'],
      response: { status: 201, headers: {}, body: {}, duration_ms: 4.2, trace_id: 'svc_new' },
      diff: { changed: true, status: { recorded: 500, current: 201 }, headers: [], body: [{ path: 'data.id', recorded: null, current: 3 }] },
      command: null,
      test_file: null,
      test_warnings: [],
      signed_in_as: null,
    }
    expect(contractValidator('ReplayJson')(replay)).toBe(true)
    await deliver(page, { type: 'busy', action: 'replay' })
    expect(await page.locator('button[data-action]:disabled').count()).toBe(10)
    await deliver(page, { type: 'replayResult', replay })
    expect(await page.textContent('#replay-status')).toBe('201')
    expect(await page.textContent('#replay-outcome')).toBe('Replayed: 201 (recorded 500) in 4.2 ms · new trace svc_new')
    expect(await page.textContent('#replay-diff')).toBe('Changed: status, 1 body field(s)')
    expect(await page.textContent('#result')).toContain('Redacted, not replayed: header authorization (Replay as… signs in)')
    expect(await page.locator('button[data-action]:disabled').count()).toBe(0)
    await page.click('#new-trace')
    expect(await lastPosted(page)).toEqual({ type: 'openTrace', traceId: 'svc_new' })
    // Signed in (as the user who made the request, or the one picked): the outcome says as whom.
    await deliver(page, { type: 'replayResult', replay: { ...replay, redacted: [], signed_in_as: 'ada@example.com' } })
    expect(await page.textContent('#replay-outcome')).toBe('Replayed: 201 (recorded 500) in 4.2 ms as ada@example.com · new trace svc_new')
    expect(await page.textContent('#result')).not.toContain('Redacted, not replayed')

    await deliver(page, { type: 'replayResult', replay: { ...replay, dry_run: true, response: null, diff: null } })
    expect(await page.textContent('#replay-outcome')).toBe('Dry run (nothing sent): POST http://localhost/api/v1/posts?draft=1')
    await deliver(page, { type: 'replayResult', replay: { ...replay, dry_run: true, target: 'http://127.0.0.1:8080', response: null, diff: null, command: "curl -X POST 'http://127.0.0.1:8080/api/v1/posts'" } })
    expect(await page.textContent('#replay-outcome')).toBe('Copied (http://127.0.0.1:8080): ')
    expect(await page.textContent('#result pre')).toBe("curl -X POST 'http://127.0.0.1:8080/api/v1/posts'")
    await deliver(page, { type: 'replayResult', replay: { ...replay, test_file: 'tests/regression/post-api-v1-posts-1.test.ts', test_warnings: ['The test sends [REDACTED] for body.password'] } })
    expect(await page.textContent('#replay-outcome')).toBe('Regression test written: tests/regression/post-api-v1-posts-1.test.ts')
    expect(await page.locator('.test-warning').allTextContents()).toEqual(['The test sends [REDACTED] for body.password'])
    await deliver(page, { type: 'error', message: 'No trace svc_x' })
    expect(await page.textContent('#replay-error')).toBe('No trace svc_x')
  })

  it('shows api:why’s analysis of a failed trace', async () => {
    const why: WhyJson = {
      request: { method: 'POST', path: '/api/v1/posts' },
      routing: { outcome: 'matched', matched: { method: 'POST', path: '/api/v1/posts', params: {}, middleware: ['auth', 'throttle:10,1'], handler: 'posts.createPost', source: null }, candidates: [], allowed: [], fallback: null, error: null },
      trace: null,
      failure: { kind: 'exception', status: 500, message: 'Cannot read properties of undefined', middleware: null, explanation: 'The handler threw TypeError: fix the code at the location below.', errors: null, location: { file: '/srv/blog/app/controllers/posts.ts', line: 61, column: 18 } },
      replay: null,
      failed_replay: null,
    }
    expect(contractValidator('WhyJson')(why)).toBe(true)
    await deliver(page, { type: 'why', why })
    expect(await page.textContent('#why-explanation')).toBe('500 exception: The handler threw TypeError: fix the code at the location below.')
    expect(await page.textContent('#why')).toContain('Routing: matched → POST /api/v1/posts (auth → throttle:10,1 → posts.createPost)')
    await page.click('#why a.source-link')
    expect(await lastPosted(page)).toEqual({ type: 'openSource', file: '/srv/blog/app/controllers/posts.ts', line: 61, column: 18 })
  })

  it('has no Why? on a trace that succeeded, and says when there is no route', async () => {
    await deliver(page, traceMessage({ trace: { ...trace, status_code: 200, response: { ...trace.response, status: 200 } }, route: null, writes: false }))
    expect(await page.locator('button[data-action="why"]').count()).toBe(0)
    expect(await page.locator('#writes').count()).toBe(0)
    expect(await page.textContent('#code-links')).toBe('Route /api/v1/posts')
    await deliver(page, traceMessage())
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
  })
})

describe('request page', () => {
  let page: Page
  const request: EditableRequest = { method: 'GET', url: 'http://127.0.0.1:8080/api/auth/me', headers: [['accept', 'application/json']], body: '' }
  const environments = [ENVIRONMENT, { name: 'staging', baseUrl: 'https://staging.example.com', production: false }, { name: 'prod', baseUrl: 'https://api.example.com', production: true }]

  beforeAll(async () => {
    page = await openPage('request')
    await deliver(page, { type: 'init', request, environments, environment: 'local', history: [], title: 'GET /api/auth/me' })
  })

  it("does not send a URL that still has a route parameter in its path ({id}): it says to fill it in", async () => {
    const routePage = await openPage('request')
    try {
      await deliver(routePage, { type: 'init', request: { ...request, url: 'http://127.0.0.1:8080/api/v1/posts/{id}?q={x}' }, environments, environment: 'local', history: [], title: 'GET /api/v1/posts/{id}' })
      await routePage.click('#send')
      // It was sent as /api/v1/posts/%7Bid%7D, a 404 that said nothing of the parameter.
      expect(await routePage.textContent('#request-error')).toBe('Put a value in place of {id} in the URL first (a parameter of the route).')
      expect((await posted(routePage)).some((message) => message.type === 'send')).toBe(false)
      await routePage.fill('#url', 'http://127.0.0.1:8080/api/v1/posts/7?q={x}')
      await routePage.click('#send')
      expect(await lastPosted(routePage)).toMatchObject({ type: 'send', request: { url: 'http://127.0.0.1:8080/api/v1/posts/7?q={x}' } })
      expect(await routePage.locator('#request-error').count()).toBe(0)
    } finally {
      await routePage.close()
    }
  })

  it('shows the request to edit, and sends what was edited, to the environment picked', async () => {
    expect(await page.inputValue('#url')).toBe('http://127.0.0.1:8080/api/auth/me')
    expect(await page.inputValue('#method')).toBe('GET')
    expect(await page.locator('#header-rows tr').count()).toBe(1)
    await page.selectOption('#environment', 'staging')
    expect(await page.inputValue('#url')).toBe('https://staging.example.com/api/auth/me')
    await page.selectOption('#method', 'POST')
    await page.click('#add-header')
    await page.locator('#header-rows tr').last().locator('.header-name').fill('content-type')
    await page.locator('#header-rows tr').last().locator('.header-value').fill('application/json')
    await page.fill('#body', '{"title": "x"')
    await page.click('#send')
    expect(await page.textContent('#body-note')).toMatch(/^Not valid JSON/)
    expect((await posted(page)).some((message) => message.type === 'send')).toBe(false)
    await page.fill('#body', '{"title": "x"}')
    await page.click('#send')
    expect(await lastPosted(page)).toEqual({
      type: 'send',
      environment: 'staging',
      request: { method: 'POST', url: 'https://staging.example.com/api/auth/me', headers: [['accept', 'application/json'], ['content-type', 'application/json']], body: '{"title": "x"}' },
    })
  })

  it('says the history is empty as a line of its own, not as its first numbered entry', async () => {
    // It read "1. Nothing sent yet".
    const empty = await openPage('request')
    try {
      await deliver(empty, { type: 'init', request, environments, environment: 'local', history: [], title: 'GET /api/auth/me' })
      expect(await empty.locator('#history li').count()).toBe(0)
      expect(await empty.locator('#history-empty').isVisible()).toBe(true)
      expect(await empty.textContent('#history-section')).toBe('HistoryNothing sent yet')
    } finally {
      await empty.close()
    }
  })

  it('puts the Authorization header the picker gave, and takes it away', async () => {
    await page.click('#authorization')
    expect(await lastPosted(page)).toEqual({ type: 'pickAuth' })
    await deliver(page, { type: 'authorization', value: 'Bearer abc.def' })
    const values = async () => page.locator('#header-rows tr').evaluateAll((rows) => rows.map((row) => [(row.querySelector('.header-name') as HTMLInputElement).value, (row.querySelector('.header-value') as HTMLInputElement).value]))
    expect(await values()).toContainEqual(['authorization', 'Bearer abc.def'])
    await deliver(page, { type: 'authorization', value: null })
    expect((await values()).some(([name]) => name === 'authorization')).toBe(false)
  })

  it('shows the response read-only, its trace id as a link, and the history', async () => {
    const history = [{ at: Date.parse('2026-01-01T12:00:00Z'), environment: 'staging', request: { ...request, method: 'DELETE', url: 'https://staging.example.com/api/v1/posts/2' }, status: 403, traceId: 'svc_abc' }]
    await deliver(page, { type: 'busy' })
    expect(await page.isDisabled('#send')).toBe(true)
    await deliver(page, { type: 'response', response: { status: 403, statusText: 'Forbidden', duration_ms: 12.5, headers: [['content-type', 'application/json'], ['x-service-trace-id', 'svc_abc']], body: '{"success":false,"message":"Forbidden"}', traceId: 'svc_abc' }, history })
    expect(await page.isDisabled('#send')).toBe(false)
    expect(await page.textContent('#response .summary')).toBe('403 Forbidden · 12.5 ms · trace svc_abc')
    expect(await page.getAttribute('#response-status', 'class')).toContain('status-4xx')
    expect(await page.textContent('#response-body')).toBe('{\n  "success": false,\n  "message": "Forbidden"\n}')
    await page.screenshot({ path: join(results, 'webview-request.png'), fullPage: true })
    await page.click('#response-trace')
    expect(await lastPosted(page)).toEqual({ type: 'openTrace', traceId: 'svc_abc' })
    expect(await page.locator('#history li').count()).toBe(1)
    // The time as everywhere else (it was the browser locale's "12:00:00 PM", without the date of an older send).
    expect(await page.textContent('#history li')).toBe('DELETE /api/v1/posts/2 403 staging · 2026-01-01 17:30')
    expect(await page.locator('#history-empty').isVisible()).toBe(false)
    await page.click('#history .history-entry')
    expect(await page.inputValue('#method')).toBe('DELETE')
    expect(await page.inputValue('#url')).toBe('https://staging.example.com/api/v1/posts/2')
    await deliver(page, { type: 'error', message: 'GET http://x failed: ECONNREFUSED' })
    expect(await page.textContent('#request-error')).toBe('GET http://x failed: ECONNREFUSED')
  })
})

describe('dashboard page', () => {
  let page: Page
  const stats: StatsJson = {
    days: 7,
    total: 12,
    by_status: { '1xx': 0, '2xx': 8, '3xx': 0, '4xx': 3, '5xx': 1 },
    error_rate: 1 / 12,
    p50_ms: 3.1,
    p95_ms: 40.5,
    p99_ms: 80.2,
    slowest_routes: [],
    dropped: 0,
    n_plus_one: 1,
    bucket_ms: 60_000,
    timeline: [
      { start: '2026-01-01T12:00:00.000Z', count: 5, errors: 0, p50_ms: 2, p95_ms: 10 },
      { start: '2026-01-01T12:01:00.000Z', count: 4, errors: 1, p50_ms: 3, p95_ms: 40 },
      { start: '2026-01-01T12:03:00.000Z', count: 3, errors: 0, p50_ms: 4, p95_ms: 20 },
    ],
  }
  const top: TopJson = {
    days: 7,
    endpoints: [
      { method: 'GET', route: '/boom', count: 1, errors: 1, avg_ms: 5, p95_ms: 5, max_ms: 5, paths: null },
      { method: 'GET', route: '/api/v1/posts', count: 8, errors: 0, avg_ms: 3, p95_ms: 9, max_ms: 12, paths: null },
      { method: 'GET', route: '(no route)', count: 3, errors: 0, avg_ms: 1, p95_ms: 1, max_ms: 1, paths: [{ path: '/wp-login.php', count: 2 }, { path: '/.env', count: 1 }] },
    ],
  }

  beforeAll(async () => {
    page = await openPage('dashboard', { width: 1000, height: 1100 })
    expect(contractValidator('StatsJson')(stats)).toBe(true)
    expect(contractValidator('TopJson')(top)).toBe(true)
    await deliver(page, { type: 'data', stats, top })
  })

  it('shows the stats as tiles, p50/p95 over time as an SVG chart, the error rate per route', async () => {
    expect(await page.textContent('#tile-total .tile-value')).toBe('12')
    expect(await page.textContent('#tile-errors .tile-value')).toBe('8.3%')
    expect(await page.textContent('#tile-p95 .tile-value')).toBe('40.5 ms')
    const series = await page.locator('#latency-chart .series').evaluateAll((groups) => groups.map((group) => [group.getAttribute('data-series'), group.querySelectorAll('circle').length]))
    expect(series).toEqual([['p50', 3], ['p95', 3]])
    // The highest p95 sits at the top of the plot, time runs left to right.
    const p95 = await page.locator('#latency-chart [data-series="p95"] circle').evaluateAll((circles) => circles.map((circle) => [Number(circle.getAttribute('cx')), Number(circle.getAttribute('cy'))]))
    expect(p95[0]![0]).toBeLessThan(p95[1]![0]!)
    expect(p95[1]![1]).toBeLessThan(p95[2]![1]!)
    // The time axis as the other views write times (on the extension host's clock, 24-hour).
    expect(await page.locator('#latency-chart .axis text').allTextContents()).toEqual(['0 ms', '20.0 ms', '40.0 ms', '2026-01-01 17:30', '2026-01-01 17:33'])
    expect(await page.locator('#error-rates tr').allTextContents()).toEqual(['GET /boom100% (1/1)', 'GET /api/v1/posts0% (0/8)', 'GET (no route)0% (0/3)'])
    // The requests that matched no route have no traces of a route to open: their paths instead.
    expect(await page.locator('#error-rates .route-link').count()).toBe(2)
    expect(await page.getAttribute('#error-rates .no-route', 'title')).toBe('/wp-login.php (2)\n/.env (1)')
    await page.screenshot({ path: join(results, 'webview-dashboard.png'), fullPage: true })
    await page.click('#error-rates .route-link >> nth=0')
    expect(await lastPosted(page)).toEqual({ type: 'openRoute', method: 'GET', route: '/boom' })
    await page.selectOption('#days', '30')
    expect(await lastPosted(page)).toEqual({ type: 'refresh', days: 30 })
  })
})

/** The defaults of svc's status colours per theme kind (extension/package.json), and the editor colours of VS Code's default themes. */
const THEMES: Record<string, { kind: 'light' | 'dark' | 'highContrast' | 'highContrastLight'; background: string; foreground: string }> = {
  'Light Modern': { kind: 'light', background: '#ffffff', foreground: '#3b3b3b' },
  'Dark Modern': { kind: 'dark', background: '#1f1f1f', foreground: '#cccccc' },
  'Dark High Contrast': { kind: 'highContrast', background: '#000000', foreground: '#ffffff' },
  'Light High Contrast': { kind: 'highContrastLight', background: '#ffffff', foreground: '#292929' },
}

describe('status colours', () => {
  it('read as green, amber and red with at least 4.5:1 text contrast in light, dark and high-contrast themes', async () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'extension', 'package.json'), 'utf8')) as { contributes: { colors: Array<{ id: string; defaults: Record<string, string> }> } }
    const page = await openPage('dashboard', { width: 900, height: 600 })
    await deliver(page, { type: 'data', stats: { days: 7, total: 4, by_status: { '1xx': 0, '2xx': 1, '3xx': 1, '4xx': 1, '5xx': 1 }, error_rate: 0.25, p50_ms: 1, p95_ms: 1, p99_ms: 1, slowest_routes: [], dropped: 0, n_plus_one: 0, bucket_ms: 60_000, timeline: [] }, top: { days: 7, endpoints: [] } })
    for (const [theme, { kind, background, foreground }] of Object.entries(THEMES)) {
      const variables: Record<string, string> = { '--vscode-editor-background': background, '--vscode-foreground': foreground }
      // VS Code names a colour's variable by replacing the first dot of its id only (svc.statusSuccess: --vscode-svc-statusSuccess).
      for (const color of manifest.contributes.colors) variables[`--vscode-${color.id.replace('.', '-')}`] = color.defaults[kind]!
      await page.evaluate((vars) => {
        for (const [name, value] of Object.entries(vars)) document.documentElement.style.setProperty(name, value)
      }, variables)
      const measured = await measureStatusContrast(page)
      for (const [status, { ratio, hue }] of Object.entries(measured)) {
        expect(ratio, `${theme}: ${status} contrast`).toBeGreaterThanOrEqual(4.5)
        expect(hueName(hue), `${theme}: ${status} hue ${hue}`).toBe({ '2xx': 'green', '3xx': 'blue', '4xx': 'amber', '5xx': 'red' }[status])
      }
    }
    await page.close()
  })
})

afterAll(() => {
  expect(problems).toEqual([])
})
