/**
 * The queue driver and the mailer an app's settings name (QUEUE_CONNECTION,
 * MAIL_MAILER), built on Node. BullMQ and nodemailer are loaded only when
 * chosen, so commands that never queue or mail do not pay for them.
 */
import { join } from 'node:path'
import type { Database } from '../database/database.ts'
import { consoleMailer, type Mailer } from '../mail/index.ts'
import type { MailSettings } from '../mail/settings.ts'
import { databaseQueueDriver } from '../queue/database-driver.ts'
import type { QueueDriver } from '../queue/driver.ts'
import type { QueueSettings } from '../queue/settings.ts'
import { syncQueueDriver } from '../queue/sync-driver.ts'
import { logMailer } from './mail-log.ts'

export async function openQueueDriver(settings: QueueSettings, database: Database | undefined): Promise<QueueDriver> {
  switch (settings.connection) {
    case 'sync':
      return syncQueueDriver()
    case 'redis': {
      const { redisQueueDriver } = await import('./redis-queue.ts')
      return redisQueueDriver({ url: settings.redisUrl, prefix: settings.redisPrefix, leaseMs: settings.leaseMs })
    }
    case 'database':
      if (database === undefined) throw new Error('QUEUE_CONNECTION=database needs the app database')
      return databaseQueueDriver(database, { leaseMs: settings.leaseMs })
  }
}

/** A mailer that can be closed (the SMTP pool, once its messages are sent); the others need no closing. */
export type ClosableMailer = Mailer & { close?(): Promise<void> }

/** `logsDir`: where the log driver writes mail.log (the app's storage/logs). */
export async function openMailer(settings: MailSettings, logsDir: string): Promise<ClosableMailer> {
  switch (settings.mailer) {
    case 'console':
      return consoleMailer({ from: settings.from })
    case 'smtp': {
      const { smtpMailer } = await import('./smtp-mailer.ts')
      const { host, port, username, password, encryption } = settings.smtp
      return smtpMailer({ host: host!, port, username, password, encryption, from: settings.from })
    }
    case 'log':
      return logMailer(join(logsDir, 'mail.log'), { from: settings.from })
  }
}
