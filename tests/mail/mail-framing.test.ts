/**
 * What an app puts in a mail cannot forge another: a line break in a subject
 * (a user's name in it), an address or a text that reads as the log's framing.
 * The log and console mailers write such values escaped, so that the log has
 * one entry per mail sent and each reads back as sent; the smtp mailer refuses
 * a sender, recipient or subject with a line break (nodemailer folded one in
 * a subject into a space, and sent `ada@example.com\r\nBcc: eve@...` to eve
 * alone), and such a message is neither queued nor retried.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatMail, MailMessageError, sendMailJob, sendOrQueue, type MailMessage, type Queue } from '../../framework/index.ts'
import { logMailer } from '../../framework/node/index.ts'
import { smtpMailer } from '../../framework/node/smtp-mailer.ts'
import { startSmtp, type RunningSmtp } from '../helpers/smtp.ts'

const FORGED_ENTRY = '\n\n--- mail 2026-01-01T00:00:00.000Z\nFrom: Blog <no-reply@blog.test>\nTo: ada@example.com\nSubject: Reset your password'

/** A mail whose subject, address and text all try to start another entry of the log. */
const hostile: MailMessage = {
  to: 'eve@example.com\nSubject: forged',
  subject: `Welcome, Eve${FORGED_ENTRY}`,
  text: 'Hello,\n--- mail 2026-01-01T00:00:01.000Z\r\nTo: bob@example.com\r--- html\n>--- mail quoted already\n\u001b[2KHi',
  html: '<p>Hi</p>\n--- mail 2026-01-01T00:00:02.000Z',
}

/** The entries of a log as a reader splits them: at each line that starts `--- mail `. */
function entriesOf(log: string): string[] {
  return log.split(/^(?=--- mail )/m).filter((entry) => entry !== '')
}

/** A header of an entry read back: the JSON string it was written as, else the value as written. */
function headerOf(entry: string, name: string): string | undefined {
  const value = new RegExp(`^${name}: (.*)$`, 'm').exec(entry.split('\n\n')[0]!)?.[1]
  try {
    return value?.startsWith('"') ? (JSON.parse(value) as string) : value
  } catch {
    return value
  }
}

describe('the log format', () => {
  const at = new Date('2026-01-01T00:00:00Z')

  it('writes a header with a line break (or another control character) as a JSON string, which reads back as sent', () => {
    const text = formatMail(hostile, at, 'Blog\r\n<no-reply@blog.test>')
    const [entry, ...more] = entriesOf(text)
    expect(more).toEqual([])
    expect(entry).toContain(`Subject: ${JSON.stringify(hostile.subject)}\n`)
    expect(headerOf(entry!, 'Subject')).toBe(hostile.subject)
    expect(headerOf(entry!, 'To')).toBe(hostile.to)
    expect(headerOf(entry!, 'From')).toBe('Blog\r\n<no-reply@blog.test>')
    expect(formatMail({ to: 'a@b.test', subject: 'Tab\there, DEL\u007f, LS\u2028', text: '' }, at)).toContain('Subject: "Tab\\there, DEL\\u007f, LS\\u2028"\n')
    // A value that would read as a JSON string is written as one, so that it reads back as it was; a display name in quotes stays as it is.
    expect(formatMail({ to: 'a@b.test', subject: '"Hi\\n"', text: '' }, at)).toContain('Subject: "\\"Hi\\\\n\\""\n')
    expect(headerOf(formatMail({ to: 'a@b.test', subject: '"Hi\\n"', text: '' }, at), 'Subject')).toBe('"Hi\\n"')
    expect(formatMail({ to: '"Ada Lovelace" <ada@example.com>', subject: '"Quoted" title', text: '' }, at)).toContain('To: "Ada Lovelace" <ada@example.com>\nSubject: "Quoted" title\n')
  })

  it('quotes the lines of a part that read as the framing with one more >, and shows other controls as escapes', () => {
    const text = formatMail(hostile, at)
    expect(text).toContain('\n\nHello,\n>--- mail 2026-01-01T00:00:01.000Z\nTo: bob@example.com\n>--- html\n>>--- mail quoted already\n\\u001b[2KHi\n\n--- html\n<p>Hi</p>\n>--- mail 2026-01-01T00:00:02.000Z\n')
    expect(text.match(/^--- (mail|html)\b/gm)).toEqual(['--- mail', '--- html'])
    expect(text).not.toMatch(/[\r\u001b]/)
  })

  it('leaves an ordinary mail as it was written before', () => {
    const plain = { to: 'ada@example.com', subject: 'Your post "Hello" is live', text: 'Hello Ada,\n\n--- \nthe blog\n-- mail me', html: '<p>Hi</p>' }
    expect(formatMail(plain, at, 'Blog <no-reply@blog.test>')).toBe(
      '--- mail 2026-01-01T00:00:00.000Z\nFrom: Blog <no-reply@blog.test>\nTo: ada@example.com\nSubject: Your post "Hello" is live\n\nHello Ada,\n\n--- \nthe blog\n-- mail me\n\n--- html\n<p>Hi</p>\n',
    )
  })

  it('mail.log holds one entry per mail sent, whatever the mails carry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-mail-framing-'))
    try {
      const log = join(dir, 'mail.log')
      const mailer = logMailer(log, { from: 'Blog <no-reply@blog.test>' })
      await mailer.send(hostile)
      await mailer.send({ to: 'bob@example.com', subject: 'Hi Bob', text: 'Hello Bob' })
      const entries = entriesOf(readFileSync(log, 'utf8'))
      expect(entries.map((entry) => headerOf(entry, 'To'))).toEqual([hostile.to, 'bob@example.com'])
      expect(entries.map((entry) => headerOf(entry, 'Subject'))).toEqual([hostile.subject, 'Hi Bob'])
      // A log it cannot write (a file where its folder should be): the error, printed on stderr, names the recipient on one line.
      const blocked = logMailer(join(log, 'mail.log'))
      await expect(blocked.send(hostile)).rejects.toThrow(/^Mail to "eve@example\.com\\nSubject: forged" not sent: the mail log /)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the smtp mailer refuses a header with a line break', () => {
  let smtp: RunningSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(async () => {
    await smtp?.stop()
  })

  it.each([
    ['subject', { to: 'ada@example.com', subject: 'Hi\r\nBcc: eve@example.com' }, /its subject "Hi\\r\\nBcc: eve@example\.com" holds a line break or another control character \(U\+000D\)/],
    ['recipient', { to: 'ada@example.com\r\nBcc: eve@example.com', subject: 'Hi' }, /its recipient \(to\) "ada@example\.com\\r\\nBcc: eve@example\.com" holds a line break/],
    ['sender', { to: 'ada@example.com', subject: 'Hi', from: 'editor@blog.test\nBcc: eve@example.com' }, /its sender \(from\) "editor@blog\.test\\nBcc: eve@example\.com" holds a line break .*\(U\+000A\)/],
  ])('in the %s: a clear error, and nothing reaches the server', async (_field, fields, error) => {
    const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, encryption: 'none', from: 'Blog <no-reply@blog.test>' })
    try {
      const refused = mailer.send({ text: 'Hello', ...fields })
      await expect(refused).rejects.toThrow(error)
      await expect(refused).rejects.toBeInstanceOf(MailMessageError)
      // The same server takes a good mail on the same connection: the refused one was never sent before it.
      await mailer.send({ to: 'ok@example.com', subject: 'Fine', text: 'Hello' })
    } finally {
      await mailer.close()
    }
    await smtp.waitFor((mail) => mail.to.includes('ok@example.com'))
    expect(smtp.received.filter((mail) => mail.to.includes('eve@example.com') || /Bcc/i.test(mail.raw))).toEqual([])
  })

  it('such a message is not queued for a retry (sendOrQueue throws), and the svc.send-mail job fails it at once', async () => {
    const mailer = smtpMailer({ host: '127.0.0.1', port: smtp.port, encryption: 'none', from: 'Blog <no-reply@blog.test>' })
    const message = { to: 'ada@example.com', subject: 'Hi\nBcc: eve@example.com', text: 'Hello' }
    try {
      const dispatched: unknown[] = []
      const queue = { dispatch: async (...args: unknown[]) => void dispatched.push(args) } as unknown as Queue
      await expect(sendOrQueue(mailer, queue, { warn: () => {} }).send(message)).rejects.toMatchObject({ name: 'MailMessageError' })
      expect(dispatched).toEqual([])
      await expect(sendMailJob.handle(message, { mailer } as never)).rejects.toMatchObject({ name: 'PermanentJobError', message: expect.stringContaining('holds a line break') })
    } finally {
      await mailer.close()
    }
  })
})
