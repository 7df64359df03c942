/**
 * The example's auth mails, end to end in Chromium: the blog (as its entry
 * files build it, `blogApp`) served on 127.0.0.1 and port 0, its mails kept in
 * memory. Register, take the link from the verification mail, open it: the
 * page posts the token and says the address is verified (and /me agrees).
 * Forgot password, take the reset link, open it, type a new password: the page
 * says it was reset, and login takes the new password and refuses the old one.
 * The links used to answer the API's 404 JSON. Nothing but 127.0.0.1 is asked
 * for, and the page reports no CSP violation.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { memoryMailer, pendingApp, resolveConfig, withServedUrl, type Database, type MailMessage } from 'svc'
import { openDatabase, serve, type RunningServer } from 'svc/node'
import { blogApp } from '../../examples/blog/runtimes/blog-app.ts'
import { TEST_ENV } from '../auth/helpers.ts'
import { CHROMIUM_ARGS, chromiumPath } from '../extension/browser.ts'

const mailer = memoryMailer()
let dir: string
let server: RunningServer
let browser: Browser
let database: Database
let release: (() => void) | undefined

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-auth-pages-'))
  database = await openDatabase({ url: `file:${join(dir, 'database.sqlite')}`, storageDir: dir, projectDir: dir })
  const env = { ...TEST_ENV, QUEUE_CONNECTION: 'sync', TRACE_ENABLED: 'false' }
  // As the example's node.ts: listen first, so the links in mails name the port it got.
  const pending = pendingApp()
  server = await serve(pending, { port: 0, host: '127.0.0.1', onClose: async () => database.close() })
  const sink = { write: async () => {}, prune: async () => 0 }
  const blog = await blogApp(resolveConfig(withServedUrl(env, server)), database, sink, { mailer })
  release = blog.release
  pending.ready(blog.app)
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS })
}, 60_000)

afterAll(async () => {
  // The blog app registered its listeners and queue for emit in this worker: later files must not meet them.
  release?.()
  await browser?.close()
  await server?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

async function api(path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const response = await fetch(`${server.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, body: await response.json() }
}

async function verifiedAt(email: string): Promise<unknown> {
  const row = await database.first<{ email_verified_at: string | null }>('select email_verified_at from users where email = ?', [email])
  return row!.email_verified_at
}

function linkIn(message: MailMessage, path: string): string {
  const link = new RegExp(`https?://\\S+${path}\\?\\S+`).exec(message.text)?.[0]
  expect(link, message.text).toBeDefined()
  return link!
}

/** A page that may ask 127.0.0.1 only, and records CSP violations and script errors. */
async function openPage(url: string): Promise<{ page: Page; outside: string[]; problems: string[] }> {
  const page = await browser.newPage()
  const outside: string[] = []
  const problems: string[] = []
  await page.route('**/*', (route) => {
    if (new URL(route.request().url()).hostname === '127.0.0.1') return route.continue()
    outside.push(route.request().url())
    return route.abort()
  })
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(String(error)))
  await page.goto(url)
  return { page, outside, problems }
}

it('register, open the verification link from the mail: the page verifies the address', async () => {
  const registered = await api('/api/auth/register', { name: 'Ada', email: 'ada@example.com', password: 'correct-horse-42', password_confirmation: 'correct-horse-42' })
  expect(registered.status, JSON.stringify(registered.body)).toBe(201)
  const token = registered.body.data.token as string
  expect(await verifiedAt('ada@example.com')).toBeNull()

  const mail = await mailer.waitFor((message) => message.to === 'ada@example.com' && /verify/i.test(message.subject))
  const link = linkIn(mail, '/verify-email')
  expect(link.startsWith(`${server.url}/verify-email?token=`)).toBe(true)
  const { page, outside, problems } = await openPage(link)
  try {
    await expect(page.locator('#outcome.ok').textContent({ timeout: 30_000 })).resolves.toBe('Email address verified')
    expect(outside).toEqual([])
    expect(problems).toEqual([])
  } finally {
    await page.close()
  }
  expect(await verifiedAt('ada@example.com')).not.toBeNull()
  expect((await api('/api/auth/me', undefined, token)).status).toBe(200)
})

it('the verification page shows the API’s error for a token that is not valid', async () => {
  const { page, problems } = await openPage(`${server.url}/verify-email?token=not-a-token`)
  try {
    await expect(page.locator('#outcome.error').textContent({ timeout: 30_000 })).resolves.toMatch(/token/i)
    expect(problems.filter((problem) => !problem.includes('422'))).toEqual([])
  } finally {
    await page.close()
  }
})

it('forgot password, open the reset link from the mail, choose a new password: login takes it', async () => {
  const asked = await api('/api/auth/forgot-password', { email: 'ada@example.com' })
  expect(asked.status, JSON.stringify(asked.body)).toBe(200)
  const mail = await mailer.waitFor((message) => message.to === 'ada@example.com' && /reset/i.test(message.subject))
  const link = linkIn(mail, '/reset-password')
  const { page, outside, problems } = await openPage(link)
  try {
    await expect(page.locator('#email').inputValue()).resolves.toBe('ada@example.com')
    // A confirmation that differs: the API's field error is shown, and the form stays.
    await page.fill('#password', 'a-new-passphrase-77')
    await page.fill('#password_confirmation', 'something else')
    await page.click('button[type=submit]')
    await expect(page.locator('#outcome.error').textContent({ timeout: 30_000 })).resolves.toMatch(/confirmation/i)
    await page.fill('#password_confirmation', 'a-new-passphrase-77')
    await page.click('button[type=submit]')
    await expect(page.locator('#outcome.ok').textContent({ timeout: 30_000 })).resolves.toBe('Your password has been reset')
    expect(outside).toEqual([])
    expect(problems.filter((problem) => !problem.includes('422'))).toEqual([])
  } finally {
    await page.close()
  }
  expect((await api('/api/auth/login', { email: 'ada@example.com', password: 'correct-horse-42' })).status).toBe(401)
  const login = await api('/api/auth/login', { email: 'ada@example.com', password: 'a-new-passphrase-77' })
  expect(login.status, JSON.stringify(login.body)).toBe(200)
})
