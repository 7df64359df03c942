/**
 * One write transaction at a time per client, within this process.
 *
 * An open transaction holds SQLite's write lock across awaits, and the native
 * driver waits for a lock synchronously: a second writer from the same process
 * would block the event loop for the whole busy timeout (so the transaction
 * holding the lock could not finish) and then fail with SQLITE_BUSY. So the
 * client's transactions take turns, and a write outside a transaction that
 * finds one open or queued takes its turn in the same queue (first come,
 * first served: waiting for the queue to empty would starve it under a steady
 * stream of transactions). Reads need not wait (WAL readers never block).
 * Waiting longer than `waitMs` is a ServiceBusyError (503 + Retry-After):
 * under load that is a full queue; in development it is usually a write
 * through the outer handle inside `transaction()`, which the cause says.
 */
import { ServiceBusyError } from '../http/service-busy.ts'

export class WriteGate {
  private tail: Promise<void> = Promise.resolve()
  private pending = 0

  constructor(readonly waitMs: number) {}

  /** True while a transaction is open or queued. */
  get busy(): boolean {
    return this.pending > 0
  }

  /** Runs `work` once every transaction queued before it has finished. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.tail
    let finished!: () => void
    this.tail = new Promise<void>((resolve) => (finished = resolve))
    this.pending++
    try {
      await this.wait(previous, Date.now() + this.waitMs)
      return await work()
    } finally {
      this.pending--
      // A turn given up (timed out) passes on only once the ones before it are done.
      void previous.then(finished)
    }
  }

  private async wait(turn: Promise<void>, deadline: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const cause = new Error(
          `Waited ${this.waitMs} ms for an open transaction to finish ` +
            '(inside db.transaction(), run every statement on the tx handle it passes, not on the outer db)',
        )
        reject(new ServiceBusyError(this.waitMs / 1000, cause))
      }, Math.max(0, deadline - Date.now()))
    })
    try {
      await Promise.race([turn, timeout])
    } finally {
      clearTimeout(timer)
    }
  }
}

/** Statements that only read: they never wait for the write gate. */
export function isReadOnly(sql: string): boolean {
  return /^\s*select\b/i.test(sql)
}
