/** The default mail driver on Node: appends every message to a log file (`storage/logs/mail.log`). */
import { appendFile, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { formatMail, type Mailer } from '../mail/index.ts'

/**
 * `from`: the sender a message without its own shows (`MAIL_FROM`), as a real mailer would send it.
 * @example const mailer = logMailer(join(storageDir, 'logs', 'mail.log'), { from: 'Blog <no-reply@blog.test>' })
 */
export function logMailer(path: string, options: { from?: string } = {}): Mailer {
  let ready: Promise<unknown> | undefined
  return {
    name: 'log',
    async send(message) {
      ready ??= mkdir(dirname(path), { recursive: true })
      await ready
      await appendFile(path, `${formatMail(message, new Date(), options.from)}\n`, { mode: 0o600 })
    },
  }
}
