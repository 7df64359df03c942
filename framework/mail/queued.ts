/**
 * Mail through the queue: `queuedMailer(queue)` is a Mailer whose `send`
 * dispatches the built-in `svc.send-mail` job, and the worker sends the
 * message with its own (real) mailer. `MAIL_QUEUE=true` makes it the app's
 * mailer, auth's verification and reset mails included.
 *
 * `sendOrQueue(mailer, queue)` sends at once and, only when that fails,
 * hands the message to the same job: a mail server (or a mail log) out of
 * reach for a while loses no mail.
 */
import { defineJob } from '../queue/job.ts'
import type { Queue } from '../queue/queue.ts'
import { PermanentJobError } from '../queue/run-job.ts'
import type { Mailer, MailMessage } from './index.ts'

export const sendMailJob = defineJob('svc.send-mail', {
  attempts: 5,
  backoff: { base: 10_000 },
  async handle(message: MailMessage, { mailer }) {
    if (mailer === undefined) throw new Error('The worker has no mailer to send with')
    try {
      await mailer.send(message)
    } catch (error) {
      // By name, as run-job reads PermanentJobError: the mailer may come from another copy of svc.
      if (error instanceof Error && error.name === 'MailMessageError') throw new PermanentJobError(error.message, { cause: error })
      throw error
    }
  },
})

export function queuedMailer(queue: Queue, options: { queue?: string } = {}): Mailer {
  return {
    name: 'queued',
    async send(message) {
      await queue.dispatch(sendMailJob, message, options.queue === undefined ? {} : { queue: options.queue })
    },
  }
}

/**
 * Sends with `mailer`; when that fails, dispatches the message to the
 * `svc.send-mail` job, which the worker retries (5 attempts, backoff), and
 * resolves: the mail is accepted, not lost. What failed is said on stderr.
 * When the queue cannot take it either, the sending error is thrown.
 */
export function sendOrQueue(mailer: Mailer, queue: Queue, options: { warn?: (line: string) => void } = {}): Mailer {
  const warn = options.warn ?? ((line: string) => console.error(line))
  return {
    name: mailer.name,
    async send(message) {
      try {
        await mailer.send(message)
      } catch (error) {
        // A message refused for what it holds fails the same way on every retry: the caller is told, nothing is queued.
        if (error instanceof Error && error.name === 'MailMessageError') throw error
        try {
          await queue.dispatch(sendMailJob, message)
        } catch {
          throw error
        }
        warn(`[svc mail] sending ${JSON.stringify(message.subject)} failed (${(error as Error).message}); queued as svc.send-mail for the worker to retry (svc queue:work)`)
      }
    },
  }
}
