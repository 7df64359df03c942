/**
 * The pages the auth mails link to (GET /verify-email, GET /reset-password),
 * served by `authPlugin()` itself, through `app.fetch`: HTML under a strict Content-Security-Policy whose nonce
 * marks the page's only script and style, the token from the query string in
 * the form, escaped; a link without its token is a 422 naming the field. Where they are served follows the links (`AUTH_*_URL` under
 * `APP_URL` or elsewhere), and `pages: false` turns them off. The browser walk (register, mail, verify; forgot, reset,
 * login) is tests/mail/auth-pages-browser.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { authPlugin, createApp, defineRoutes, resolveConfig } from 'svc'
import { createTestClient } from 'svc/testing'
import type { AuthPluginOptions, EnvRecord, RouteRegistrar } from 'svc'

/** An app with auth and nothing else: the pages are the plugin's. */
function appWith(env: EnvRecord = {}, options: AuthPluginOptions = {}) {
  return createTestClient(createApp({ config: resolveConfig({ APP_ENV: 'test', ...env }), plugins: [authPlugin(options)] }))
}

const client = appWith()

const HOSTILE = `"><script>alert(1)</script>&'`
const HOSTILE_ESCAPED = '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;'

function nonceOf(csp: string): string {
  const match = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)
  expect(match, csp).not.toBeNull()
  return match![1]!
}

describe.each([
  ['/verify-email', '/api/auth/verify-email'],
  ['/reset-password', '/api/auth/reset-password'],
])('GET %s', (path, endpoint) => {
  it('is an HTML page under a strict CSP; its only script and style carry the nonce, fresh for each answer', async () => {
    const first = await client.get(`${path}?token=abc&email=ada%40example.com`)
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = first.headers.get('content-security-policy')!
    const nonce = nonceOf(csp)
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain(`style-src 'nonce-${nonce}'`)
    expect(csp).toContain("connect-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(first.headers.get('referrer-policy')).toBe('no-referrer')
    expect(first.headers.get('cache-control')).toBe('no-store')
    const page = first.body as string
    expect(page.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`])
    expect(page.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`])
    expect(page).not.toMatch(/\b(src|href)=/)
    expect(page).toContain(`data-endpoint="${endpoint}"`)
    expect(page).toContain('<input type="hidden" name="token" value="abc">')
    const second = await client.get(`${path}?token=abc`)
    expect(nonceOf(second.headers.get('content-security-policy')!)).not.toBe(nonce)
  })

  it('escapes the token (and the address) taken from the query string', async () => {
    const hostile = encodeURIComponent(HOSTILE)
    const { status, body } = await client.get(`${path}?token=${hostile}&email=${hostile}`)
    expect(status).toBe(200)
    expect(body).toContain(`name="token" value="${HOSTILE_ESCAPED}"`)
    expect(body).not.toContain('<script>alert(1)')
    expect(body.match(/<script\b/g)).toHaveLength(1)
  })

  it('a link without a token is refused in the JSON envelope, naming the field (as any bad query)', async () => {
    const cases: Array<[string, string]> = [
      ['', 'The token field is required.'],
      ['?token=', 'The link has no token: open the link from the mail as it is, or ask for a new mail.'],
      ['?token=a&token=b', 'The link has no token: open the link from the mail as it is, or ask for a new mail.'],
    ]
    for (const [query, message] of cases) {
      const { status, body } = await client.get(`${path}${query}`)
      expect(status).toBe(422)
      expect(body).toMatchObject({ success: false, code: 422, errors: { token: [message] } })
    }
  })
})

it('the reset page shows the address from the link, escaped, and does not send it', async () => {
  const { body } = await client.get(`/reset-password?token=t&email=${encodeURIComponent(HOSTILE)}`)
  expect(body).toContain(`<input id="email" type="email" value="${HOSTILE_ESCAPED}" autocomplete="username" readonly>`)
  expect(body).toContain('name="password"')
  expect(body).toContain('name="password_confirmation"')
})

describe('where the pages are served', () => {
  const served = async (client: ReturnType<typeof appWith>, path: string) => (await client.get(`${path}?token=t`)).status

  it('at the path of a link under APP_URL (the default: /verify-email, /reset-password)', async () => {
    const custom = appWith({
      APP_URL: 'https://api.example.com',
      AUTH_VERIFY_EMAIL_URL: 'https://api.example.com/account/verify?token={token}',
    })
    expect(await served(custom, '/account/verify')).toBe(200)
    expect(await served(custom, '/verify-email')).toBe(404)
    expect(await served(custom, '/reset-password')).toBe(200)
  })

  it('not for a link elsewhere (your own front end), nor one whose token is not ?token=, nor under /api', async () => {
    const elsewhere = appWith({
      APP_URL: 'https://api.example.com',
      AUTH_VERIFY_EMAIL_URL: 'https://app.example.com/verify-email?token={token}',
      AUTH_RESET_PASSWORD_URL: 'https://api.example.com/reset/{token}',
    })
    expect(await served(elsewhere, '/verify-email')).toBe(404)
    expect(await served(elsewhere, '/reset/{token}')).toBe(404)
    const underApi = appWith({ APP_URL: 'https://api.example.com', AUTH_VERIFY_EMAIL_URL: 'https://api.example.com/api/verify?token={token}' })
    expect(await served(underApi, '/api/verify')).toBe(404)
    // The page reads ?token=: a link that carries it under another name would be refused by it.
    const otherName = appWith({ APP_URL: 'https://api.example.com', AUTH_VERIFY_EMAIL_URL: 'https://api.example.com/verify?t={token}' })
    expect(await served(otherName, '/verify')).toBe(404)
    expect(await served(underApi, '/reset-password')).toBe(200)
  })

  it('below APP_URL\'s path (a proxy that strips it): the page posts to the API under that path', async () => {
    const prefixed = appWith({ APP_URL: 'https://example.com/shop/' })
    const { status, body } = await prefixed.get('/verify-email?token=t')
    expect(status).toBe(200)
    expect(body).toContain('data-endpoint="/shop/api/auth/verify-email"')
  })

  it('not at all with authPlugin({ pages: false }): the app serves its own', async () => {
    expect(await served(appWith({}, { pages: true }), '/verify-email')).toBe(200)
    const off = appWith({}, { pages: false })
    expect(await served(off, '/verify-email')).toBe(404)
    expect(await served(off, '/reset-password')).toBe(404)
  })
})

it('an app that serves its own page at the same path keeps it (its route wins over the plugin\'s)', async () => {
  const web = defineRoutes((r) => {
    r.get('/verify-email', function ownVerifyPage() {
      return { page: 'the app\'s own' }
    })
  })
  const own = createTestClient(createApp({ config: resolveConfig({ APP_ENV: 'test' }), web, plugins: [authPlugin()] }))
  expect((await own.get('/verify-email?token=t')).body).toMatchObject({ data: { page: 'the app\'s own' } })
  expect((await own.get('/reset-password?token=t')).headers.get('content-type')).toBe('text/html; charset=utf-8')
})

describe("an app's own route that answers GET /verify-email, in whatever form, wins over the plugin's page", () => {
  const mine = () => ({ page: "the app's own" })
  const appServing = (define: (r: RouteRegistrar) => void, env: EnvRecord = {}) =>
    createApp({ config: resolveConfig({ APP_ENV: 'test', ...env }), web: defineRoutes(define), plugins: [authPlugin()] })
  it.each([
    ['r.any', (r: RouteRegistrar) => r.any('/verify-email', mine)],
    ['a group prefix', (r: RouteRegistrar) => r.group('verify-email', (r) => r.get('/', mine))],
    ['nested groups', (r: RouteRegistrar) => r.group('/', (r) => r.group({ prefix: 'verify-email/' }, (r) => r.any('', mine)))],
    ['an optional parameter after it', (r: RouteRegistrar) => r.get('/verify-email/{step?}', mine)],
    ['a parameter whose constraint takes it', (r: RouteRegistrar) => r.get('/{page}', mine).where('page', /verify-.+/)],
    ['a trailing slash', (r: RouteRegistrar) => r.get('/verify-email/', mine)],
  ])('%s', async (_label, define) => {
    const app = appServing(define)
    const own = createTestClient(app)
    expect((await own.get('/verify-email?token=t')).body).toMatchObject({ data: { page: "the app's own" } })
    expect(app.routes().map((route) => route.handler)).not.toContain('verifyEmailPage')
    expect((await own.get('/reset-password?token=t')).headers.get('content-type')).toBe('text/html; charset=utf-8')
  })

  it.each([
    ['another method', (r: RouteRegistrar) => r.post('/verify-email', mine)],
    ['a constraint that refuses the path', (r: RouteRegistrar) => r.get('/{page}', mine).where('page', /\d+/)],
    ['a path in another case (paths are case-sensitive)', (r: RouteRegistrar) => r.get('/Verify-Email', mine)],
    ['a longer path', (r: RouteRegistrar) => r.get('/verify-email/{step}', mine)],
  ])('not a route that does not answer it: %s', async (_label, define) => {
    const own = createTestClient(appServing(define))
    expect((await own.get('/verify-email?token=t')).headers.get('content-type')).toBe('text/html; charset=utf-8')
  })

  it('at a page path of its own (AUTH_VERIFY_EMAIL_URL), the app route at that path wins', async () => {
    const env = { APP_URL: 'https://example.com', AUTH_VERIFY_EMAIL_URL: 'https://example.com/account/verify?token={token}' }
    const own = createTestClient(appServing((r) => r.group('account', (r) => r.any('/{action?}', mine)), env))
    expect((await own.get('/account/verify?token=t')).body).toMatchObject({ data: { page: "the app's own" } })
  })
})

