/**
 * The docs page (`make:openapi --with-swagger`): written to public/docs.html,
 * served by the app at /docs with Swagger UI's files from swagger-ui-dist,
 * off in production unless API_DOCS=true, and working with no network: in
 * Chromium, with every request outside 127.0.0.1 refused, it shows the auth
 * endpoints and a protected operation with its lock.
 */
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderDocsPage } from '../../cli/openapi/docs-page.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { CHROMIUM_ARGS, chromiumPath } from '../extension/browser.ts'
import { copyExampleApp, svcEnv, type AppCopy } from '../helpers/cli.ts'
import { runSvc, startSvc } from '../helpers/run-svc.ts'

let copy: AppCopy

beforeAll(async () => {
  copy = copyExampleApp('blog')
  const made = await runSvc(['make:openapi', '--with-swagger'], { cwd: copy.dir })
  expect(made.exitCode, made.stderr).toBe(0)
  expect(made.stdout).toContain('Wrote public/docs.html')
  expect(made.stderr).toContain('svc serve shows it at /docs.')
})

afterAll(() => copy?.remove())

/** The copy's app as the CLI loads it (no database), with `env` on top of a clean environment. */
async function appWith(env: Record<string, string>) {
  const project = findProject(copy.dir, svcEnv(env))
  return loadApp(project, { withDatabase: false })
}

describe('serving the page', () => {
  it('the page inlines the document, loads Swagger UI from /docs/assets, turns the online validator off and allows no script but its own', () => {
    const page = copy.read('public', 'docs.html')
    expect(page).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>')
    expect(page).toContain('<script type="application/json" id="openapi-document">{')
    expect(page).toContain("script-src 'self'")
    expect(page).not.toMatch(/https?:\/\/(?!schema\.)/)
    expect(JSON.parse(/id="openapi-document">(.*?)<\/script>/s.exec(page)![1]!)).toEqual(JSON.parse(copy.read('docs', 'openapi.json')))
  })

  it('the document cannot break out of its script element', () => {
    const page = renderDocsPage({ openapi: '3.0.3', info: { title: '</script><script>alert(1)</script>', version: '1' }, paths: {} })
    expect(page).not.toContain('</script><script>alert(1)')
    expect(page).toContain('<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;: API documentation</title>')
  })

  it('the app answers /docs and Swagger UI’s files (development by default); an unknown file is a 404; /docs is not in the API description', async () => {
    const loaded = await appWith({})
    try {
      const page = await loaded.app.fetch(new Request('http://localhost/docs'))
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(await page.text()).toBe(copy.read('public', 'docs.html'))
      const bundle = await loaded.app.fetch(new Request('http://localhost/docs/assets/swagger-ui-bundle.js'))
      expect([bundle.status, bundle.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8'])
      expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
      for (const path of ['/docs/assets/index.html', '/docs/assets/..%2Fpackage.json', '/docs/assets/swagger-ui-bundle.js.map']) {
        expect((await loaded.app.fetch(new Request(`http://localhost${path}`))).status, path).toBe(404)
      }
    } finally {
      await loaded.close()
    }
    expect(JSON.parse(copy.read('docs', 'openapi.json')).paths).not.toHaveProperty('/docs')
  })

  it('production serves no page unless API_DOCS=true; a bad API_DOCS is a configuration error', async () => {
    const production = await appWith({ APP_ENV: 'production', JWT_SECRET: 'p'.repeat(40) })
    try {
      expect((await production.app.fetch(new Request('http://localhost/docs'))).status).toBe(404)
    } finally {
      await production.close()
    }
    const enabled = await appWith({ APP_ENV: 'production', JWT_SECRET: 'p'.repeat(40), API_DOCS: 'true' })
    try {
      expect((await enabled.app.fetch(new Request('http://localhost/docs'))).status).toBe(200)
    } finally {
      await enabled.close()
    }
    const off = await appWith({ API_DOCS: 'false' })
    try {
      expect((await off.app.fetch(new Request('http://localhost/docs'))).status).toBe(404)
    } finally {
      await off.close()
    }
    await expect(appWith({ API_DOCS: 'sometimes' })).rejects.toThrow(/API_DOCS/)
  })
})

describe('a server started before the page was written', () => {
  // `svc serve` (or live) running, then make:openapi --with-swagger: /docs was the app's 404 until a restart,
  // since the routes were only added when the page existed at start-up.
  it('serves /docs once make:openapi --with-swagger writes it, without a restart; before, a 404 saying how to write it', async () => {
    const fresh = copyExampleApp('blog')
    const served = await loadApp(findProject(fresh.dir, svcEnv({})), { withDatabase: false, serving: true })
    try {
      const before = await served.app.fetch(new Request('http://localhost/docs'))
      expect(before.status).toBe(404)
      expect((await before.json()).error).toBe('No docs page: run svc make:openapi --with-swagger')
      expect((await runSvc(['make:openapi', '--with-swagger'], { cwd: fresh.dir })).exitCode).toBe(0)
      const after = await served.app.fetch(new Request('http://localhost/docs'))
      expect(after.status).toBe(200)
      expect(await after.text()).toBe(fresh.read('public', 'docs.html'))
    } finally {
      await served.close()
      fresh.remove()
    }
  })
})

describe('the page in Chromium, offline', () => {
  let browser: Browser

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS })
  })

  afterAll(() => browser?.close())

  it('shows the auth endpoints and the lock of a protected operation, and asks nothing of any host but the app', async () => {
    const server = startSvc(['serve', '--migrate', '--port', '0', '--host', '127.0.0.1'], { cwd: copy.dir })
    try {
      const [url] = await server.waitFor(/http:\/\/127\.0\.0\.1:\d+/, 60_000)
      const page = await browser.newPage()
      const outside: string[] = []
      const problems: string[] = []
      await page.route('**/*', (route) => {
        const { hostname } = new URL(route.request().url())
        if (hostname === '127.0.0.1') return route.continue()
        outside.push(route.request().url())
        return route.abort()
      })
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text())
      })
      page.on('pageerror', (error) => problems.push(String(error)))
      await page.goto(`${url}/docs`)
      await page.locator('.opblock').first().waitFor({ timeout: 60_000 })

      const paths = await page.locator('.opblock-summary-path').allTextContents()
      for (const path of ['/api/auth/register', '/api/auth/login', '/api/auth/refresh', '/api/auth/logout', '/api/auth/me']) expect(paths).toContain(path)
      const create = page.locator('.opblock-post', { has: page.locator('.opblock-summary-path', { hasText: /^\/api\/v1\/posts$/ }) })
      await expect(create.locator('.authorization__btn').count()).resolves.toBe(1)
      const list = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path', { hasText: /^\/api\/v1\/posts$/ }) })
      await expect(list.locator('.authorization__btn').count()).resolves.toBe(0)
      await expect(page.locator('.btn.authorize').count()).resolves.toBe(1)
      expect(outside).toEqual([])
      expect(problems).toEqual([])
      await page.close()
    } finally {
      await server.stop()
    }
  })
})
