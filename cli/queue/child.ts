/**
 * The worker side of `queue:work --workers=N`: a child process (forked by the
 * supervisor, SVC_QUEUE_CHILD=1) runs one worker and reports to its parent
 * over the IPC channel: every worker event, then why it stopped. It prints no
 * progress itself; the parent does, for all its children.
 */
import type { WireEvent } from './progress.ts'
import type { WorkSummary } from './worker.ts'

export const CHILD_ENV = 'SVC_QUEUE_CHILD'

export type ChildMessage = { type: 'event'; event: WireEvent } | { type: 'stopped'; summary: WorkSummary }

/** True in a process the supervisor forked (it has an IPC channel to the parent). */
export function isWorkerChild(env: Readonly<Record<string, string | undefined>>): boolean {
  return env[CHILD_ENV] === '1' && typeof process.send === 'function'
}

export function tellParent(message: ChildMessage): void {
  process.send?.(message)
}

/** The last message: sent, then the channel closed (an open IPC channel would keep this process alive). */
export function leaveParent(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) return resolve()
    process.send(message, () => {
      process.disconnect?.()
      resolve()
    })
  })
}

/** Aborts `controller` when the parent goes away: the worker then stops after its current job. */
export function stopWhenOrphaned(controller: AbortController): void {
  process.once('disconnect', () => controller.abort('parent exited'))
}
