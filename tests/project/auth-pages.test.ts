/**
 * A project made by `svc new` serves the pages its auth mails link to: register
 * in the new project's app (in-process, svc/testing/project), take the link
 * from the captured mail (its mail log), GET it: an HTML page under the CSP,
 * not the API's 404 it answered before. The same for the reset link.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { createProject } from '../../cli/generators/project/create.ts'
import { projectTestApp, type ProjectTestApp } from 'svc/testing/project'
import { tempDir } from '../helpers/app.ts'
import { linkRepoModules } from '../helpers/cli.ts'

const sandbox = tempDir('svc-new-pages-')
let t: ProjectTestApp
let projectDir: string

beforeAll(async () => {
  const project = await createProject({ folder: 'demo', cwd: sandbox.path, databaseUrl: '', jwtAlgorithm: 'HS256' })
  projectDir = project.dir
  linkRepoModules(project.dir)
  t = await projectTestApp({ root: project.dir })
}, 60_000)

afterAll(async () => {
  await t?.close()
  sandbox.remove()
})

/** The link to `path` in the mail log, once the mail is there (mails go after the answer). */
async function linkInMails(path: string): Promise<URL> {
  const link = await vi.waitFor(() => {
    const found = new RegExp(`https?://\\S+${path}\\?\\S+`).exec(readFileSync(t.mailLog, 'utf8'))?.[0]
    if (found === undefined) throw new Error(`no ${path} link in ${t.mailLog} yet`)
    return found
  })
  return new URL(link)
}

async function expectPage(url: URL, endpoint: string): Promise<void> {
  const { status, headers, body } = await t.client.get(`${url.pathname}${url.search}`)
  expect(status, JSON.stringify(body)).toBe(200)
  expect(headers.get('content-type')).toBe('text/html; charset=utf-8')
  expect(headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'/)
  expect(body).toContain(`data-endpoint="${endpoint}"`)
  expect(body).toContain(`name="token" value="${url.searchParams.get('token')}"`)
}

it('the verification and reset links of a new project open its pages', async () => {
  const account = { name: 'Lin', email: 'lin@example.test', password: 'correct horse battery', password_confirmation: 'correct horse battery' }
  expect((await t.client.post('/api/auth/register', { json: account })).status).toBe(201)
  await expectPage(await linkInMails('/verify-email'), '/api/auth/verify-email')

  expect((await t.client.post('/api/auth/forgot-password', { json: { email: account.email } })).status).toBe(200)
  await expectPage(await linkInMails('/reset-password'), '/api/auth/reset-password')
})

it('its README says where the mails and their pages are', () => {
  const readme = readFileSync(join(projectDir, 'README.md'), 'utf8')
  expect(readme).toContain('storage/logs/mail.log')
  expect(readme).toContain('its link opens `/verify-email`, a page svc serves')
})

it('lists them among its routes', () => {
  const pages = t.app.routes().filter((route) => route.path === '/verify-email' || route.path === '/reset-password')
  expect(pages.map((route) => `${route.method} ${route.path}`)).toEqual(['GET /verify-email', 'GET /reset-password'])
})
