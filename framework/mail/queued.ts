/**
 * Mail through the queue: `queuedMailer(queue)` is a Mailer whose `send`
 * dispatches the built-in `svc.send-mail` job, and the worker sends the
 * message with its own (real) mailer. `MAIL_QUEUE=true` makes it the app's
 * mailer, auth's verification and reset mails included.
 */
import { defineJob } from '../queue/job.ts'
import type { Queue } from '../queue/queue.ts'
import type { Mailer, MailMessage } from './index.ts'

export const sendMailJob = defineJob('svc.send-mail', {
  attempts: 5,
  backoff: { base: 10_000 },
  async handle(message: MailMessage, { mailer }) {
    if (mailer === undefined) throw new Error('The worker has no mailer to send with')
    await mailer.send(message)
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
