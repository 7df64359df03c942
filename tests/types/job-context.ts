/**
 * Type-level test: the job of docs/queues.md, as written there, compiles: a
 * job's `handle` gets `db`, `mailer`, `queue` and `config` as they are (not
 * possibly undefined: it was TS18048 'mailer' is possibly 'undefined').
 */
import { defineJob, type AppConfig, type Database, type JobContext, type Mailer, type Queue } from 'svc'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
function expectType<T extends true>(): T | undefined {
  return undefined
}

export interface SendDigestPayload { userId: number }

// docs/queues.md, "Jobs"
export const sendDigest = defineJob('send-digest', {
  queue: 'mail',
  attempts: 5,
  backoff: { base: 2000, cap: 600_000 },
  timeout: 120_000,
  async handle(payload: SendDigestPayload, { db, mailer, queue, config, job, signal }) {
    // job: { id, name, queue, attempt, maxAttempts }; signal aborts at the timeout or when the lease is lost
    const user = await db.first<{ email: string }>('select email from users where id = ?', [payload.userId])
    if (user === undefined || signal.aborted) return
    await mailer.send({ to: user.email, subject: `Your digest (${config.env}, try ${job.attempt})`, text: '...' })
    await queue.dispatch(sendDigest, { userId: payload.userId }, { delay: 86_400_000 })
  },
})

expectType<Equal<JobContext['db'], Database>>()
expectType<Equal<JobContext['mailer'], Mailer>>()
expectType<Equal<JobContext['queue'], Queue>>()
expectType<Equal<JobContext['config'], AppConfig>>()
