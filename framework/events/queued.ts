/**
 * Queued listeners (`queued: true`): `emit` dispatches the built-in
 * `svc.listener` job with the listener's name and the event as JSON; a
 * worker finds the listener by name among the registered ones (the app's
 * app/listeners/index.ts) and runs it on the event rebuilt as an instance of
 * its class. At-least-once like every job: a listener may run twice.
 */
import { PermanentJobError } from '../queue/run-job.ts'
import { defineJob, type JsonValue } from '../queue/job.ts'
import type { Queue } from '../queue/queue.ts'
import { listenerNamed, type ListenerQueue } from './index.ts'

export interface QueuedListenerPayload {
  listener: string
  event: JsonValue
}

export const listenerJob = defineJob('svc.listener', {
  // Every queued listener is this one job: the worker's line names which listener ran.
  describe: (payload: QueuedListenerPayload) => queuedListenerName(payload),
  async handle(payload: QueuedListenerPayload, context) {
    const listener = listenerNamed(payload.listener)
    if (listener === undefined) {
      throw new PermanentJobError(`No listener named "${payload.listener}" is registered (is it in app/listeners/index.ts?)`)
    }
    const event = Object.assign(Object.create(listener.event.prototype as object) as object, payload.event)
    await listener.handle(event, { db: context.db, queue: context.queue, mailer: context.mailer, config: context.config })
  },
})

/** The listener a stored `svc.listener` payload names (undefined for any other payload): what says which one failed. */
export function queuedListenerName(payload: unknown): string | undefined {
  const listener = typeof payload === 'object' && payload !== null ? (payload as { listener?: unknown }).listener : undefined
  return typeof listener === 'string' && listener !== '' ? listener : undefined
}

/** The ListenerQueue that dispatches to `queue`: `useListenerQueue(listenerQueue(queue))` (the `svc` CLI does). */
export function listenerQueue(queue: Queue): ListenerQueue {
  return {
    async push(listener, event) {
      const dispatched = await queue.dispatch(listenerJob, { listener: listener.name, event: event as JsonValue })
      return { failed: dispatched.failed?.message }
    },
  }
}
