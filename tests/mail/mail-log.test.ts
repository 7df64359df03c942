/**
 * The log mail driver (`MAIL_MAILER=log`, the development default) when it
 * cannot write storage/logs/mail.log: the mail is kept nowhere else, so a
 * send fails, naming the file and what is wrong. Sent directly, the app's
 * mailer queues it for a retry and prints why (sendOrQueue); through the
 * queue, the svc.send-mail job is retried, then kept as failed for
 * queue:status. The path is made unwritable with a regular file where the
 * logs folder should be (the tests run as root, which ignores permissions).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createTestClient } from 'svc/testing'
import { logMailer } from '../../framework/node/index.ts'
import type { LoadedApp } from '../../cli/project/load-app.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { queueApp, withLoadedApp } from '../queue/fixture.ts'

const PASSWORD = 'correct horse battery staple'
const message = { to: 'ada@example.com', subject: 'Hello', text: 'Hi Ada' }

describe('logMailer with a mail log it cannot write', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-mail-log-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('rejects the send, naming the file and what is in the way; once the folder is repaired the next send is written', async () => {
    const logs = join(dir, 'logs')
    writeFileSync(logs, 'not a folder')
    const mailer = logMailer(join(logs, 'mail.log'))
    await expect(mailer.send(message)).rejects.toThrow(
      `Mail to ada@example.com not sent: the mail log ${join(logs, 'mail.log')} cannot be written (a file is in the way of the folder ${logs}: `,
    )
    // Repaired while the app runs: no restart needed.
    rmSync(logs)
    mkdirSync(logs)
    await mailer.send(message)
    expect(readFileSync(join(logs, 'mail.log'), 'utf8')).toContain('To: ada@example.com\nSubject: Hello\n\nHi Ada\n')
    // A folder removed while the app runs is made again.
    rmSync(logs, { recursive: true })
    await mailer.send(message)
    expect(readFileSync(join(logs, 'mail.log'), 'utf8')).toContain('To: ada@example.com')
  })
})

describe('an app whose storage/logs is a file', () => {
  let app: AppCopy
  beforeAll(async () => {
    app = await queueApp({ APP_ENV: 'test', MAIL_MAILER: 'log', PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_ITERATIONS: '1' })
    rmSync(app.path('storage', 'logs'), { recursive: true, force: true })
    writeFileSync(app.path('storage', 'logs'), 'not a folder')
  })
  afterAll(() => app?.remove())

  const withApp = <T>(env: Record<string, string>, work: (loaded: LoadedApp) => Promise<T>) => withLoadedApp(app, env, work)
  const register = (loaded: LoadedApp, email: string) =>
    createTestClient(loaded.app).post('/api/auth/register', { json: { name: 'Ada', email, password: PASSWORD, password_confirmation: PASSWORD } })

  it('sent directly (after auth\'s answer): the mail is queued for a retry, and the reason printed', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      await withApp({}, async (loaded) => {
        expect((await register(loaded, 'direct@example.com')).status).toBe(201)
        await vi.waitFor(() => expect(printed).toHaveBeenCalledWith(expect.stringContaining('[svc mail] sending "Verify your email address" failed (Mail to direct@example.com not sent: the mail log ')), { timeout: 10_000 })
        expect(await loaded.queue!.driver.counts()).toEqual([{ queue: 'default', pending: 1, delayed: 0, reserved: 0, failed: 0 }])
        // The next test counts its own job alone.
        await loaded.database!.execute("delete from jobs where name = 'svc.send-mail'")
      })
      expect(String(printed.mock.calls[0]?.[0])).toContain(`(a file is in the way of the folder ${app.path('storage', 'logs')}: `)
    } finally {
      printed.mockRestore()
    }
  })

  it('through the queue (MAIL_QUEUE=true): the job is retried, then kept as failed with the reason for queue:status', async () => {
    await withApp({ MAIL_QUEUE: 'true' }, async (loaded) => {
      expect((await register(loaded, 'queued@example.com')).status).toBe(201)
    })
    const first = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
    expect(first.exitCode).toBe(0)
    expect(first.stdout).toMatch(/svc\.send-mail #\d+ \(default attempt 1\/5\) RETRY .*Mail to queued@example\.com not sent: the mail log .* cannot be written/)

    // Its last attempt, due now (rather than after four backoffs).
    const db = createClient({ url: `file:${app.path('storage', 'database.sqlite')}` })
    try {
      await db.execute("update jobs set attempts = 4, available_at = 0 where name = 'svc.send-mail'")
    } finally {
      db.close()
    }
    const last = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
    expect(last.stdout).toMatch(/svc\.send-mail #\d+ \(default attempt 5\/5\) FAIL .*Mail to queued@example\.com not sent/)

    const status = await svcJson<{ failed_jobs: Array<{ name: string; error: string; attempts: number }> }>(['queue:status'], { cwd: app.dir })
    expect(status.failed_jobs).toEqual([
      expect.objectContaining({ name: 'svc.send-mail', attempts: 5, error: expect.stringContaining('Mail to queued@example.com not sent: the mail log ') }),
    ])
  })
})
