/**
 * The auth flows' mails through the app's mailer as the CLI builds it: with
 * MAIL_MAILER=smtp the verification mail reaches a real local SMTP server;
 * with MAIL_QUEUE=true registering and forgot-password only queue the mail
 * (svc.send-mail), and `svc queue:work` sends it; with the mail server out
 * of reach the mail is queued to be retried (sendOrQueue), not lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestClient } from 'svc/testing'
import type { LoadedApp } from '../../cli/project/load-app.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { freePort } from '../helpers/redis.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { decodedBody, startSmtp, type RunningSmtp } from '../helpers/smtp.ts'
import { queueApp, withLoadedApp } from '../queue/fixture.ts'

const PASSWORD = 'correct horse battery staple'
let smtp: RunningSmtp
let app: AppCopy

beforeAll(async () => {
  smtp = await startSmtp()
  app = await queueApp({
    APP_ENV: 'test',
    MAIL_MAILER: 'smtp',
    MAIL_HOST: '127.0.0.1',
    MAIL_PORT: String(smtp.port),
    MAIL_ENCRYPTION: 'none',
    MAIL_FROM: 'Blog <no-reply@blog.test>',
    PASSWORD_HASH_MEMORY_KIB: '64',
    PASSWORD_HASH_ITERATIONS: '1',
  })
})

afterAll(async () => {
  await smtp?.stop()
  app?.remove()
})

const withApp = <T>(env: Record<string, string>, work: (loaded: LoadedApp) => Promise<T>) => withLoadedApp(app, env, work)

function register(loaded: LoadedApp, email: string) {
  return createTestClient(loaded.app).post('/api/auth/register', { json: { name: 'Ada', email, password: PASSWORD, password_confirmation: PASSWORD } })
}

describe('auth mails', () => {
  it('go over SMTP, as text and HTML', async () => {
    await withApp({}, async (loaded) => {
      expect((await register(loaded, 'direct@example.com')).status).toBe(201)
    })
    const mail = await smtp.waitFor((received) => received.to.includes('direct@example.com'))
    expect(mail.raw).toMatch(/^Subject: Verify your email address\r?$/m)
    const body = decodedBody(mail.raw)
    expect(body).toContain('Confirm your email address by opening this link:')
    expect(body).toMatch(/<a href="http:\/\/127\.0\.0\.1:8080\/verify-email\?token=[^"]+">Verify my email address<\/a>/)
  })

  it('with MAIL_QUEUE=true are queued, and queue:work sends them', async () => {
    await withApp({ MAIL_QUEUE: 'true' }, async (loaded) => {
      expect((await register(loaded, 'queued@example.com')).status).toBe(201)
      expect((await createTestClient(loaded.app).post('/api/auth/forgot-password', { json: { email: 'queued@example.com' } })).status).toBe(200)
      // Both mails wait in the queue (the forgot-password one is queued after the answer).
      for (let i = 0; i < 200 && (await loaded.queue!.driver.counts())[0]?.pending !== 2; i++) await new Promise((resolve) => setTimeout(resolve, 25))
      expect(await loaded.queue!.driver.counts()).toEqual([{ queue: 'default', pending: 2, delayed: 0, reserved: 0, failed: 0 }])
    })
    expect(smtp.received.some((received) => received.to.includes('queued@example.com'))).toBe(false)

    const work = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
    expect(work.exitCode).toBe(0)
    expect(work.stdout.match(/svc\.send-mail #\d+ \(default attempt 1\/5\) DONE/g)).toHaveLength(2)
    const subjects = smtp.received.filter((received) => received.to.includes('queued@example.com')).map((received) => /^Subject: (.*?)\r?$/m.exec(received.raw)?.[1])
    expect(subjects.sort()).toEqual(['Reset your password', 'Verify your email address'])
  })

  it('with the mail server out of reach are queued to be retried, and queue:work sends them once it is back', async () => {
    const lines: string[] = []
    const error = console.error
    console.error = (line: unknown) => void lines.push(String(line))
    try {
      await withApp({ MAIL_PORT: String(await freePort()) }, async (loaded) => {
        expect((await register(loaded, 'retried@example.com')).status).toBe(201)
        // The mail is sent after the answer: it fails, then waits in the queue.
        for (let i = 0; i < 200 && (await loaded.queue!.driver.counts())[0]?.pending !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 25))
        expect(await loaded.queue!.driver.counts()).toEqual([{ queue: 'default', pending: 1, delayed: 0, reserved: 0, failed: 0 }])
      })
    } finally {
      console.error = error
    }
    expect(lines).toEqual([expect.stringMatching(/^\[svc mail\] sending "Verify your email address" failed \(.*\); queued as svc\.send-mail for the worker to retry \(svc queue:work\)$/)])
    expect(smtp.received.some((received) => received.to.includes('retried@example.com'))).toBe(false)

    const work = await runSvc(['queue:work', '--stop-when-empty'], { cwd: app.dir })
    expect(work.exitCode).toBe(0)
    expect(work.stdout.match(/svc\.send-mail #\d+ \(default attempt 1\/5\) DONE/g)).toHaveLength(1)
    const mail = await smtp.waitFor((received) => received.to.includes('retried@example.com'))
    expect(mail.raw).toMatch(/^Subject: Verify your email address\r?$/m)
  })
})
