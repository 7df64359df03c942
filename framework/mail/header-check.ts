/**
 * Header values a mail server must not be given: a line break ends a header,
 * and what follows it is read as more headers. nodemailer folded a line break
 * in a subject into a space (the subject changed without a word), and read
 * `ada@example.com\r\nBcc: eve@example.com` as a `to` of eve alone: the mail
 * went to someone else. A message whose sender, recipient or subject holds a
 * line break or another control character is refused, naming what to fix.
 */
import { mailHeaderValue } from './format-mail.ts'
import type { MailMessage } from './index.ts'

/** C0 controls but the tab (CR and LF among them), and DEL: what no header line may hold. */
const HEADER_CONTROL = /[\0-\x08\x0A-\x1F\x7F]/

/** A message no retry can send as it is (`sendOrQueue` does not queue it; `svc.send-mail` fails it at once). */
export class MailMessageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MailMessageError'
  }
}

/**
 * Throws a MailMessageError when `from`, `to` or `subject` holds a line break
 * or another control character; `from` is the message's sender or the mailer's.
 * @example assertSendableHeaders({ to: 'ada@example.com', subject: 'Hi\nBcc: eve@example.com', text: '' }, 'App <no-reply@example.com>') // throws
 */
export function assertSendableHeaders(message: MailMessage, from: string): void {
  const fields = [
    ['sender (from)', from],
    ['recipient (to)', message.to],
    ['subject', message.subject],
  ] as const
  for (const [field, value] of fields) {
    const code = headerControl(value)
    if (code === undefined) continue
    throw new MailMessageError(
      `Mail to ${mailHeaderValue(message.to)} not sent: its ${field} ${mailHeaderValue(value)} holds a line break or another control character (${code}), ` +
        'which would end the header and let what follows add headers (Bcc:, another To:); take it out of the value (a user\'s text in a subject: its first line)',
    )
  }
}

/** The first control character a header may not hold, as `U+000A`; undefined when there is none. */
export function headerControl(value: string): string | undefined {
  const control = HEADER_CONTROL.exec(value)?.[0]
  return control === undefined ? undefined : `U+${control.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`
}
