/**
 * A job's `handle` gets every service (JobContext): the ones its host gave,
 * and for one it was not given (a fetch runtime's `runWorker({ services })`
 * without a mailer) a stand-in that fails the run naming the missing service
 * when the job uses it, and only then (destructuring it is fine).
 */
import { describe, expect, it } from 'vitest'
import { createQueue, defineJob, memoryMailer, syncQueueDriver, type FailedJob } from 'svc'

describe('JobContext services', () => {
  it('passes the services given, and a stand-in that says which service is missing when used', async () => {
    const mailer = memoryMailer()
    const seen: string[] = []
    const greet = defineJob('greet', {
      attempts: 1,
      async handle(payload: { to: string }, { mailer, db, config }) {
        seen.push(typeof db, typeof config) // destructured, not used: no error
        await mailer.send({ to: payload.to, subject: 'Hi', text: 'hello' })
      },
    })
    const failures: FailedJob[] = []
    await createQueue(syncQueueDriver({ onFailed: (job) => failures.push(job) }), { mailer }).dispatch(greet, { to: 'ada@example.com' })
    expect(mailer.messages.map((message) => message.to)).toEqual(['ada@example.com'])
    expect(failures).toEqual([])

    await createQueue(syncQueueDriver({ onFailed: (job) => failures.push(job) })).dispatch(greet, { to: 'bob@example.com' })
    expect(failures.map((job) => job.error)).toEqual(["This job's worker was given no mailer (services.mailer), so mailer.send cannot be used here"])
    expect(seen).toEqual(['object', 'object', 'object', 'object'])
  })
})
