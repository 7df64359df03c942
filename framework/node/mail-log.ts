/** The default mail driver on Node: appends every message to a log file (`storage/logs/mail.log`). */
import { appendFile, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { formatMail, type Mailer } from '../mail/index.ts'

/** @example const mailer = logMailer(join(storageDir, 'logs', 'mail.log')) */
export function logMailer(path: string): Mailer {
  let ready: Promise<unknown> | undefined
  return {
    name: 'log',
    async send(message) {
      ready ??= mkdir(dirname(path), { recursive: true })
      await ready
      await appendFile(path, `${formatMail(message, new Date())}\n`, { mode: 0o600 })
    },
  }
}
