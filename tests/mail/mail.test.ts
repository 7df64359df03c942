/**
 * Mail: defineMail renders text and escaped HTML; the smtp driver
 * (nodemailer) delivers to a real local SMTP server, with and without
 * authentication; queuedMailer sends through the queue's svc.send-mail job;
 * the settings say what is missing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConfigError,
  createQueue,
  defineMail,
  formatMail,
  html,
  memoryMailer,
  queuedMailer,
  resolveConfig,
  sendOrQueue,
  type Mailer,
  type Queue,
  resolveMailSettings,
  syncQueueDriver,
  textToHtml,
} from '../../framework/index.ts'
import { openMailer } from '../../framework/node/index.ts'
import { smtpMailer } from '../../framework/node/smtp-mailer.ts'
import { decodedBody, startSmtp, type RunningSmtp } from '../helpers/smtp.ts'

const welcome = defineMail<{ name: string; url: string }>({
  subject: ({ name }) => `Welcome, ${name}`,
  text: ({ name, url }) => `Hello ${name},\n\nyour account is ready: ${url}`,
  html: ({ name, url }) => html`<p>Hello ${name},</p><p>your account is <a href="${url}">ready</a>.</p>`,
})

describe('defineMail', () => {
  it('renders the subject, the text and an HTML document with every value escaped', () => {
    const message = welcome.to('ada@example.com', { name: 'Ada <script>', url: 'https://example.com/?a=1&b="2"' })
    expect(message.to).toBe('ada@example.com')
    expect(message.subject).toBe('Welcome, Ada <script>')
    expect(message.text).toBe('Hello Ada <script>,\n\nyour account is ready: https://example.com/?a=1&b="2"')
    expect(message.html).toContain('<p>Hello Ada &lt;script&gt;,</p><p>your account is <a href="https://example.com/?a=1&amp;b=&quot;2&quot;">ready</a>.</p>')
    expect(message.html).toMatch(/^<!doctype html>\n<html>\n<head><meta charset="utf-8">.*<title>Welcome, Ada &lt;script&gt;<\/title>/)
  })

  it('makes the HTML from the text when a mail gives none: paragraphs, line breaks, links', () => {
    const plain = defineMail<{ code: string }>({ subject: () => 'Code', text: ({ code }) => `Your code: ${code}\nValid 10 min.\n\nSee https://example.com/help` })
    expect(plain.render({ code: '<1234>' }).html).toContain(
      '<p>Your code: &lt;1234&gt;<br>\nValid 10 min.</p>\n<p>See <a href="https://example.com/help">https://example.com/help</a></p>',
    )
    expect(textToHtml('a & b').value).toBe('<p>a &amp; b</p>')
  })

  it('html`` keeps nested markup and lists, drops null and false', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`)
    expect(html`<ul>${items}</ul>${null}${false}${undefined}${0}`.value).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>0')
  })

  it('the log format has the sender: the message\'s own, else the mailer\'s (MAIL_FROM)', async () => {
    const message = welcome.to('ada@example.com', { name: 'Ada', url: 'https://x' })
    const at = new Date('2026-01-01T00:00:00Z')
    expect(formatMail(message, at, 'Blog <no-reply@blog.test>')).toMatch(/^--- mail 2026-01-01T00:00:00.000Z\nFrom: Blog <no-reply@blog.test>\nTo: ada@example.com\nSubject: Welcome, Ada\n/)
    expect(formatMail({ ...message, from: 'Ada <ada@blog.test>' }, at, 'Blog <no-reply@blog.test>')).toMatch(/\nFrom: Ada <ada@blog.test>\nTo: /)
    const dir = mkdtempSync(join(tmpdir(), 'svc-mail-log-'))
    try {
      const mailer = await openMailer(resolveMailSettings(resolveConfig({ MAIL_FROM: 'Blog <no-reply@blog.test>' })), dir)
      await mailer.send(message)
      expect(readFileSync(join(dir, 'mail.log'), 'utf8')).toMatch(/^--- mail \S+\nFrom: Blog <no-reply@blog.test>\nTo: ada@example.com\n/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the log format keeps the text first and adds the HTML part', () => {
    const text = formatMail(welcome.to('ada@example.com', { name: 'Ada', url: 'https://x' }), new Date('2026-01-01T00:00:00Z'))
    expect(text).toMatch(/^--- mail 2026-01-01T00:00:00.000Z\nTo: ada@example.com\nSubject: Welcome, Ada\n\nHello Ada,\n\nyour account is ready: https:\/\/x\n\n--- html\n<!doctype html>/)
  })
})

describe('the smtp driver', () => {
  let smtp: RunningSmtp
  let authed: RunningSmtp

  beforeAll(async () => {
    smtp = await startSmtp()
    authed = await startSmtp({ username: 'app', password: 's3cret' })
  })
  afterAll(async () => {
    await smtp?.stop()
    await authed?.stop()
  })

  it('delivers text and HTML to a real SMTP server, from MAIL_FROM unless the message names a sender', async () => {
    const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, encryption: 'none', from: 'Blog <no-reply@blog.test>' })
    try {
      await mailer.send(welcome.to('ada@example.com', { name: 'Ada', url: 'https://blog.test/start' }))
      await mailer.send({ ...welcome.to('bob@example.com', { name: 'Bob', url: 'https://blog.test/b' }), from: 'editor@blog.test' })
    } finally {
      await mailer.close()
    }
    const ada = await smtp.waitFor((mail) => mail.to.includes('ada@example.com'))
    expect(ada.from).toBe('no-reply@blog.test')
    expect(ada.raw).toMatch(/^From: Blog <no-reply@blog\.test>\r?$/m)
    expect(ada.raw).toMatch(/^Subject: Welcome, Ada\r?$/m)
    expect(ada.raw).toContain('multipart/alternative')
    const body = decodedBody(ada.raw)
    expect(body).toContain('your account is ready: https://blog.test/start')
    expect(body).toContain('<a href="https://blog.test/start">ready</a>')
    expect((await smtp.waitFor((mail) => mail.to.includes('bob@example.com'))).from).toBe('editor@blog.test')
  })

  it('authenticates with MAIL_USERNAME and MAIL_PASSWORD, and a wrong password fails the send', async () => {
    const settings = resolveMailSettings(
      resolveConfig({ MAIL_MAILER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(authed.port), MAIL_ENCRYPTION: 'none', MAIL_USERNAME: 'app', MAIL_PASSWORD: 's3cret' }),
    )
    const mailer = await openMailer(settings, '/nonexistent')
    try {
      expect(mailer.name).toBe('smtp')
      await mailer.send({ to: 'carol@example.com', subject: 'Hi', text: 'Hello' })
    } finally {
      await mailer.close?.()
    }
    expect((await authed.waitFor((mail) => mail.to.includes('carol@example.com'))).raw).toContain('Subject: Hi')
    const wrong = smtpMailer({ host: '127.0.0.1', port: authed.port, encryption: 'none', username: 'app', password: 'nope', from: 'a@b.c', timeoutSeconds: 10 })
    try {
      await expect(wrong.send({ to: 'dan@example.com', subject: 'Hi', text: 'Hello' })).rejects.toThrow(/Invalid username or password|auth/i)
    } finally {
      await wrong.close()
    }
  })
})

describe('queued mail', () => {
  it('queuedMailer dispatches svc.send-mail, and the job sends with the worker mailer', async () => {
    const real = memoryMailer()
    const queue = createQueue(syncQueueDriver(), { mailer: real })
    await queuedMailer(queue).send(welcome.to('ada@example.com', { name: 'Ada', url: 'https://x' }))
    expect(real.messages).toHaveLength(1)
    expect(real.messages[0]).toMatchObject({ to: 'ada@example.com', subject: 'Welcome, Ada' })
  })
})

describe('sendOrQueue', () => {
  const message = welcome.to('ada@example.com', { name: 'Ada', url: 'https://x' })
  const failing: Mailer = {
    name: 'smtp',
    async send() {
      throw new Error('connect ECONNREFUSED 127.0.0.1:2525')
    },
  }

  it('sends at once when it can, and queues nothing', async () => {
    const real = memoryMailer()
    const dispatched: unknown[] = []
    const queue = { dispatch: async (...args: unknown[]) => void dispatched.push(args) } as unknown as Queue
    await sendOrQueue(real, queue).send(message)
    expect(real.messages).toEqual([message])
    expect(dispatched).toEqual([])
  })

  it('queues the message as svc.send-mail when sending fails, and says so', async () => {
    const dispatched: Array<[{ name: string }, unknown]> = []
    const queue = { dispatch: async (job: { name: string }, payload: unknown) => void dispatched.push([job, payload]) } as unknown as Queue
    const warned: string[] = []
    await sendOrQueue(failing, queue, { warn: (line) => warned.push(line) }).send(message)
    expect(dispatched.map(([job, payload]) => [job.name, payload])).toEqual([['svc.send-mail', message]])
    expect(warned).toEqual(['[svc mail] sending "Welcome, Ada" failed (connect ECONNREFUSED 127.0.0.1:2525); queued as svc.send-mail for the worker to retry (svc queue:work)'])
  })

  it('throws the sending error when the queue cannot take the message either', async () => {
    const queue = { dispatch: async () => Promise.reject(new Error('database is locked')) } as unknown as Queue
    await expect(sendOrQueue(failing, queue, { warn: () => {} }).send(message)).rejects.toThrow('connect ECONNREFUSED 127.0.0.1:2525')
  })
})

describe('mail settings', () => {
  it('default to the log driver, and name what smtp is missing', () => {
    expect(resolveMailSettings(resolveConfig({}))).toMatchObject({ mailer: 'log', queue: false, from: 'svc <no-reply@localhost>' })
    expect(() => resolveMailSettings(resolveConfig({ MAIL_MAILER: 'smtp' }))).toThrow(ConfigError)
    expect(() => resolveMailSettings(resolveConfig({ MAIL_MAILER: 'smtp' }))).toThrow(/MAIL_HOST/)
    expect(() => resolveMailSettings(resolveConfig({ MAIL_MAILER: 'smtp', MAIL_HOST: 'h', MAIL_USERNAME: 'u' }))).toThrow(/MAIL_PASSWORD/)
    expect(() => resolveMailSettings(resolveConfig({ MAIL_MAILER: 'postfix' }))).toThrow(/MAIL_MAILER/)
    expect(() => resolveMailSettings(resolveConfig({ MAIL_ENCRYPTION: 'ssl' }))).toThrow(/MAIL_ENCRYPTION/)
    // A sender on two lines ("..." in .env turns \n into a line break) stops the app at start-up, not each mail at its send.
    expect(() => resolveMailSettings(resolveConfig({ MAIL_FROM: 'Blog\nBcc: eve@example.com <no-reply@blog.test>' }))).toThrow(
      new ConfigError('MAIL_FROM', 'holds a line break or another control character (U+000A): a sender is one line, such as App <no-reply@example.com>'),
    )
  })
})
