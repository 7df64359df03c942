/**
 * The mail interface auth and the app send through (`c.mailer`). Drivers:
 * `memoryMailer` (tests, previews), `consoleMailer` (any runtime),
 * `queuedMailer` (through the queue), and on Node, from `svc/node`,
 * `logMailer` (appends to `storage/logs/mail.log`: the default of apps run by
 * the `svc` CLI) and `smtpMailer` (nodemailer). Mails are written with
 * `defineMail`. See docs/mail.md.
 *
 * @example
 * const mailer = memoryMailer()
 * await mailer.send({ to: 'ada@example.com', subject: 'Hi', text: 'Hello' })
 * mailer.messages[0].subject // 'Hi'
 */

import { formatMail } from './format-mail.ts'

export interface MailMessage {
  to: string
  subject: string
  text: string
  /** A whole HTML document (defineMail renders one). */
  html?: string
  /** The sender; the mailer's configured one (`MAIL_FROM`) by default. */
  from?: string
}

export interface Mailer {
  readonly name: string
  send(message: MailMessage): Promise<void>
}

export interface MemoryMailer extends Mailer {
  readonly messages: MailMessage[]
  /** Resolves with the first message (already sent or still to come) that matches. */
  waitFor(match: (message: MailMessage) => boolean): Promise<MailMessage>
}

export function memoryMailer(): MemoryMailer {
  const messages: MailMessage[] = []
  const waiting: Array<{ match: (message: MailMessage) => boolean; resolve: (message: MailMessage) => void }> = []
  return {
    name: 'memory',
    messages,
    async send(message) {
      messages.push(message)
      for (const waiter of [...waiting]) {
        if (waiter.match(message)) {
          waiting.splice(waiting.indexOf(waiter), 1)
          waiter.resolve(message)
        }
      }
    },
    waitFor(match) {
      const found = messages.find(match)
      if (found !== undefined) return Promise.resolve(found)
      return new Promise((resolve) => waiting.push({ match, resolve }))
    },
  }
}

/**
 * Writes each message to the console (`console.info`): for runtimes without files.
 * `from`: the sender a message without its own shows (`MAIL_FROM`), as a real mailer would send it.
 */
export function consoleMailer(options: { from?: string } = {}): Mailer {
  return {
    name: 'console',
    async send(message) {
      console.info(formatMail(message, new Date(), options.from))
    },
  }
}

export { formatMail, mailHeaderValue } from './format-mail.ts'
export { assertSendableHeaders, MailMessageError } from './header-check.ts'
export { defineMail, type MailDefinition, type MailDefinitionOptions, type RenderedMail } from './define-mail.ts'
export { html, escapeHtml, textToHtml, SafeHtml } from './html.ts'
export { queuedMailer, sendMailJob, sendOrQueue } from './queued.ts'
