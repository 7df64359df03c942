/**
 * Layer 4: the extension in a real VS Code. Packages the .vsix
 * (`npm run package` in extension/), installs it into a throw-away code-server
 * profile, opens the workbench on a copy of the blog app with recorded
 * traffic in Chromium (Playwright) and checks what a user sees: the Routes
 * view lists the routes, the Traces view lists the traces, opening one shows
 * the trace detail webview, Replay runs and shows the new status, and a route
 * file shows the CodeLens. Screenshots go to test-results/.
 *
 * code-server is installed once per machine by
 * extension/scripts/install-code-server.sh (CI runs it when missing). Without
 * it this test fails under CI=true and is skipped locally, saying so.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT, SVC_BIN, assertBuilt } from '../helpers/cli.ts'
import { chromiumPath, CHROMIUM_ARGS } from './browser.ts'
import { createProfile, findCodeServer, installExtension, startCodeServer, type CodeServerProfile, type RunningCodeServer } from './code-server.ts'
import { recordedApp, type RecordedApp } from './helpers.ts'

const install = findCodeServer()
const results = join(REPO_ROOT, 'test-results')
const INSTALL_HINT = 'install it with: bash extension/scripts/install-code-server.sh (needs Debian libkrb5-dev; see docs/vscode-extension.md)'

if (install === null) {
  if (process.env.CI === 'true') {
    describe('the extension in code-server', () => {
      it('needs code-server installed on CI', () => {
        throw new Error(`code-server is missing: ${INSTALL_HINT}`)
      })
    })
  } else {
    console.warn(`[tests/extension/vscode.e2e.test.ts] skipped: code-server is not installed; ${INSTALL_HINT}`)
  }
}

describe.skipIf(install === null)('the extension in code-server', () => {
  let app: RecordedApp
  let profile: CodeServerProfile
  let server: RunningCodeServer
  let browser: Browser
  let page: Page

  const shot = (name: string) => page.screenshot({ path: join(results, `vscode-${name}.png`) })

  beforeAll(async () => {
    assertBuilt()
    mkdirSync(results, { recursive: true })
    execFileSync('npm', ['run', 'package'], { cwd: join(REPO_ROOT, 'extension'), stdio: 'pipe', timeout: 120_000 })
    const vsix = join(REPO_ROOT, 'extension', 'svc-vscode.vsix')
    expect(existsSync(vsix)).toBe(true)

    app = await recordedApp([
      { method: 'GET', path: '/api/v1/posts' },
      { method: 'GET', path: '/api/v1/posts/1' },
      { method: 'GET', path: '/api/v1/posts/999' },
      { method: 'GET', path: '/api/v2/posts' },
      { method: 'GET', path: '/nowhere' },
      { method: 'GET', path: '/boom' },
    ])
    // The workspace runs the repo's built svc with this Node.
    app.write('.vscode/settings.json', `${JSON.stringify({ 'svc.command': SVC_BIN, 'svc.nodePath': process.execPath, 'svc.traces.autoRefresh': 2 }, null, 2)}\n`)

    profile = createProfile(install!, {
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'telemetry.telemetryLevel': 'off',
      'security.workspace.trust.enabled': false,
      'extensions.ignoreRecommendations': true,
      'extensions.autoUpdate': false,
      'update.mode': 'none',
      'chat.disableAIFeatures': true,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'editor.codeLens': true,
      'typescript.disableAutomaticTypeAcquisition': true,
      'typescript.tsserver.experimental.enableProjectDiagnostics': false,
    })
    const installed = installExtension(install!, profile, vsix)
    expect(installed).toMatch(/svc-vscode\.vsix' was successfully installed/)
    server = await startCodeServer(install!, profile, app.dir)

    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS })
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } })
    await page.goto(`${server.url}/?folder=${encodeURIComponent(app.dir)}`)
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 })
  }, 300_000)

  afterAll(async () => {
    if (page && server && (await page.isClosed()) === false) await shot('last').catch(() => undefined)
    await browser?.close()
    await server?.stop()
    profile?.remove()
    app?.remove()
  }, 60_000)

  function viewPane(title: string) {
    return page.locator(`.pane:has(> .pane-header[aria-label^="${title}"])`)
  }

  async function openSvcContainer(): Promise<void> {
    const item = page.locator('.activitybar .action-item:has(> a.action-label[aria-label^="svc"])').first()
    await item.waitFor({ timeout: 60_000 })
    if (!((await item.getAttribute('class')) ?? '').includes('checked')) await item.locator('a.action-label').click()
  }

  it('lists the routes in the Routes view, grouped by prefix and version', async () => {
    await openSvcContainer()
    const routes = viewPane('Routes')
    await routes.locator('.monaco-list-row', { hasText: 'GET /api/v1/posts/{id}' }).waitFor({ timeout: 60_000 })
    await shot('routes')
    // Collapsed, every group is a row (the tree renders only the rows in view).
    await routes.locator('.pane-header').hover()
    await routes.locator('.pane-header a.action-label[aria-label^="Collapse All"]').click()
    await expect.poll(() => routes.locator('.monaco-list-row .label-name').allTextContents(), { timeout: 10_000 }).toEqual(['/health', '/api/auth', '/api/v1', '/api/v2', '/', '/boom'])
    expect(await routes.locator('.monaco-list-row', { hasText: '/api/v1' }).textContent()).toContain('7 routes')
  }, 120_000)

  it('lists the recorded traces in the Traces view, newest first, and the status bar counts them', async () => {
    const traces = viewPane('Traces')
    await traces.locator('.monaco-list-row', { hasText: '500 GET /boom' }).waitFor({ timeout: 60_000 })
    const rows = await traces.locator('.monaco-list-row .label-name').allTextContents()
    expect(rows.slice(0, 6)).toEqual(['500 GET /boom', '404 GET /nowhere', '200 GET /api/v2/posts', '404 GET /api/v1/posts/999', '200 GET /api/v1/posts/1', '200 GET /api/v1/posts'])
    await expect.poll(() => page.locator('.statusbar-item', { hasText: 'svc:' }).first().textContent(), { timeout: 30_000 }).toMatch(/svc: \d+ routes · 6 traces/)
    await shot('traces')
  }, 120_000)

  it('shows the CodeLens above the routes of a route file', async () => {
    await page.keyboard.press('Control+P')
    const quickOpen = page.locator('.quick-input-widget input')
    await quickOpen.waitFor()
    await quickOpen.fill('routes/api.ts')
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'api.ts' }).first().waitFor()
    await page.keyboard.press('Enter')
    const lens = page.locator('.contentWidgets .codelens-decoration, .codelens-decoration')
    await lens.filter({ hasText: 'GET /api/v1/posts/{id} · 2 traces' }).first().waitFor({ timeout: 60_000 })
    const texts = await lens.allTextContents()
    expect(texts.some((text) => /GET \/api\/v1\/posts\/\{id\} · 2 traces(?!,)/.test(text))).toBe(true)
    expect(texts.some((text) => text.includes('Send request'))).toBe(true)
    await shot('codelens')
  }, 120_000)

  it('opens the traces of a route from its CodeLens, and filters errors only', async () => {
    const traces = viewPane('Traces')
    const labels = () => traces.locator('.monaco-list-row .label-name').allTextContents()
    await page.locator('.codelens-decoration a', { hasText: 'GET /api/v1/posts/{id} · 2 traces' }).click()
    await expect.poll(labels, { timeout: 30_000 }).toEqual(['404 GET /api/v1/posts/999', '200 GET /api/v1/posts/1'])
    expect(await traces.locator('.pane-header').textContent()).toContain('route /api/v1/posts/{id}')
    await shot('traces-of-route')

    await page.keyboard.press('F1')
    await page.locator('.quick-input-widget input').fill('>svc: Clear Trace Filters')
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Clear Trace Filters' }).first().click()
    await expect.poll(async () => (await labels()).length, { timeout: 30_000 }).toBe(6)

    await traces.locator('.pane-header').hover()
    await traces.locator('.pane-header a.action-label[aria-label="Toggle Errors Only"]').click()
    await expect.poll(labels, { timeout: 30_000 }).toEqual(['500 GET /boom'])
    expect(await traces.locator('.pane-header').textContent()).toContain('errors only')
    await traces.locator('.pane-header').hover()
    await traces.locator('.pane-header a.action-label[aria-label="Toggle Errors Only"]').click()
    await expect.poll(async () => (await labels()).length, { timeout: 30_000 }).toBe(6)
  }, 120_000)

  let detail: FrameLocator

  it('opens a trace in the detail webview', async () => {
    await viewPane('Traces').locator('.monaco-list-row', { hasText: '200 GET /api/v1/posts/1' }).click()
    detail = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame')
    await detail.locator('h1').waitFor({ timeout: 60_000 })
    expect(await detail.locator('h1').textContent()).toBe('GET /api/v1/posts/1 200')
    expect(await detail.locator('#sql h2').textContent()).toMatch(/^SQL \(1 query/)
    expect(await detail.locator('#response h2').textContent()).toBe('Response 200')
    await shot('trace-detail')
  }, 120_000)

  it('replays the trace from the webview and shows the new status', async () => {
    await detail.locator('button[data-action="replay"]').click()
    await detail.locator('#replay-status').waitFor({ timeout: 60_000 })
    expect(await detail.locator('#replay-status').textContent()).toBe('200')
    expect(await detail.locator('#replay-outcome').textContent()).toContain('(recorded 200)')
    await shot('replay')
  }, 120_000)

  it('replays and diffs in VS Code\'s diff editor', async () => {
    await detail.locator('button[data-action="replayDiff"]').click()
    const diffTab = page.locator('.tabs-container .tab', { hasText: 'recorded ↔ replayed' })
    await diffTab.waitFor({ timeout: 60_000 })
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 })
    expect(await detail.locator('#replay-diff').textContent()).toBe('Same response as recorded')
    await shot('replay-diff')
  }, 120_000)

  it('creates a regression test from the trace and opens it', async () => {
    await page.locator('.tabs-container .tab[aria-label^="200 GET /api/v1/posts/1"]').click()
    await detail.locator('button[data-action="createTest"]').click()
    await detail.locator('#replay-outcome', { hasText: 'Regression test written' }).waitFor({ timeout: 60_000 })
    const written = (await detail.locator('#replay-outcome code').textContent())!
    expect(written).toMatch(/\.test\.ts$/)
    const name = written.split('/').at(-1)!
    await page.locator('.tabs-container .tab', { hasText: name }).waitFor({ timeout: 30_000 })
    await shot('regression-test')
  }, 120_000)

  it('copies the request as curl', async () => {
    await page.locator('.tabs-container .tab[aria-label^="200 GET /api/v1/posts/1"]').click()
    await detail.locator('button[data-action="copyCurl"]').click()
    await detail.locator('#result pre', { hasText: 'curl' }).waitFor({ timeout: 60_000 })
    expect(await detail.locator('#result pre').textContent()).toMatch(/^curl .*\/api\/v1\/posts\/1/)
    await page.locator('.notifications-toasts', { hasText: 'curl command copied to the clipboard' }).waitFor({ timeout: 30_000 })
  }, 120_000)

  it('in a production app, Replay shows the dry run and asks before --force', async () => {
    const env = app.read('.env')
    app.write('.env', /^APP_ENV=/m.test(env) ? env.replace(/^APP_ENV=.*$/m, 'APP_ENV=production') : `${env}\nAPP_ENV=production\n`)
    await page.locator('.tabs-container .tab[aria-label^="200 GET /api/v1/posts/1"]').click()
    const dialog = page.locator('.monaco-dialog-box')
    const outcome = detail.locator('#replay-outcome')

    // Cancel: nothing is sent, the dry run stays on screen.
    await detail.locator('button[data-action="replay"]').click()
    await dialog.filter({ hasText: 'This app runs in production' }).waitFor({ timeout: 60_000 })
    // Without --url a replay goes to the host and port the request was recorded on.
    expect(await outcome.textContent()).toMatch(/^Dry run \(nothing sent\): GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/posts\/1$/)
    await shot('production-dry-run')
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await outcome.textContent()).toContain('Dry run (nothing sent)')

    // Confirm: replayed with --force, and the new status is shown.
    await detail.locator('button[data-action="replay"]').click()
    await dialog.locator('.monaco-button', { hasText: 'Replay with --force' }).click()
    await detail.locator('#replay-status').waitFor({ timeout: 60_000 })
    expect(await detail.locator('#replay-status').textContent()).toBe('200')
    await shot('production-forced')
  }, 120_000)

  it('shows the welcome view in a workspace without an svc app', async () => {
    const empty = join(profile.root, 'empty-folder')
    mkdirSync(empty, { recursive: true })
    writeFileSync(join(empty, 'README.md'), '# not an svc app\n')
    mkdirSync(join(empty, '.vscode'))
    writeFileSync(join(empty, '.vscode', 'settings.json'), JSON.stringify({ 'svc.command': SVC_BIN, 'svc.nodePath': process.execPath }))
    const other = await browser.newPage({ viewport: { width: 1200, height: 800 } })
    try {
      await other.goto(`${server.url}/?folder=${encodeURIComponent(empty)}`)
      await other.locator('.monaco-workbench').waitFor({ timeout: 90_000 })
      const item = other.locator('.activitybar .action-item:has(> a.action-label[aria-label^="svc"])').first()
      await item.waitFor({ timeout: 60_000 })
      if (!((await item.getAttribute('class')) ?? '').includes('checked')) await item.locator('a.action-label').click()
      await other.locator('.welcome-view-content', { hasText: 'No svc app in this workspace' }).first().waitFor({ timeout: 60_000 })
      await expect.poll(() => other.locator('.statusbar-item', { hasText: 'svc:' }).first().textContent(), { timeout: 30_000 }).toContain('svc: no app')
      await other.screenshot({ path: join(results, 'vscode-welcome.png') })
    } finally {
      await other.close()
    }
  }, 180_000)

})
