/**
 * One write transaction at a time per client, within this process.
 *
 * An open transaction holds SQLite's write lock across awaits, and the native
 * driver waits for a lock synchronously: a second writer from the same process
 * would block the event loop for the whole busy timeout (so the transaction
 * holding the lock could not finish) and then fail with SQLITE_BUSY. So the
 * client's transactions take turns, and writes outside a transaction wait
 * until none is open or queued. Reads need not wait (WAL readers never block).
 * Waiting longer than `waitMs` fails with a clear error instead of hanging:
 * that is what writing through the outer handle inside `transaction()` does.
 */
export class WriteGate {
  private tail: Promise<void> = Promise.resolve()
  private pending = 0

  constructor(private readonly waitMs: number) {}

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

  /** Resolves once no transaction is open or queued. */
  async idle(): Promise<void> {
    const deadline = Date.now() + this.waitMs
    while (this.pending > 0) await this.wait(this.tail, deadline)
  }

  private async wait(turn: Promise<void>, deadline: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Waited ${this.waitMs} ms for an open transaction to finish ` +
                '(inside db.transaction(), run every statement on the tx handle it passes, not on the outer db)',
            ),
          ),
        Math.max(0, deadline - Date.now()),
      )
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
