/**
 * `projectTestApp()` (svc/testing/project) keeps the app's mails to itself, as it
 * keeps its database: whatever `.env` says (an SMTP server, the log driver),
 * the mails a test's requests send are written to a mail log in the test's
 * temporary folder (`t.mailLog`), never sent, and never appended to the
 * project's storage/logs/mail.log. They used to go through `.env`'s mailer:
 * every `npm test` of a new project added its mails to the development
 * mail log, and with MAIL_MAILER=smtp tried to send them.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { findProject } from '../../cli/project/project.ts'
import { projectTestApp, type ProjectTestApp } from '../../cli/testing/project-app.ts'
import { SECRET } from '../auth/helpers.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'

let copy: AppCopy
let t: ProjectTestApp

beforeAll(async () => {
  copy = copyExampleApp('blog')
  // A mail server that is not there (port 9, discard): a mail sent through it would fail.
  copy.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\nMAIL_MAILER=smtp\nMAIL_HOST=127.0.0.1\nMAIL_PORT=9\nMAIL_ENCRYPTION=none\n`)
  t = await projectTestApp({ root: copy.dir })
}, 60_000)
afterAll(async () => {
  await t?.close()
  copy?.remove()
})

it("a request's mail lands in the test's own mail log, not .env's SMTP server nor the project's storage/logs", async () => {
  const token = await t.tokenFor({ email: 'author@example.test', name: 'Author' })
  // The blog's queued listener mails the author; QUEUE_CONNECTION=sync runs it inside the request.
  const created = await t.client.post('/api/v2/posts', { json: { title: 'Mailed', body: 'From a test' }, token, headers: { 'idempotency-key': 'mail-1' } })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  expect(t.config.env).toBe('test')
  const log = readFileSync(t.mailLog, 'utf8')
  expect(log).toContain('To: author@example.test')
  expect(log).toContain('Mailed')
  expect(existsSync(join(findProject(copy.dir).storageDir, 'logs', 'mail.log'))).toBe(false)
})
