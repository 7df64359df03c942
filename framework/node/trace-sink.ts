/**
 * Where `svc serve` writes trace batches on Node (`TRACE_WRITER`):
 * - `worker`: a worker thread owns the store's connection; the request
 *   thread posts each encoded batch (one string) and the SQLite write runs
 *   on another core, when there is one;
 * - `thread`: the request thread writes each batch itself, between
 *   requests, never waiting for a lock; a worker thread only copies the
 *   store's log back into the file (the checkpoint, a few milliseconds and
 *   two syncs every few megabytes), which would otherwise stop the event loop;
 * - `auto` (the default): `worker` where the process can run on more than one
 *   CPU, `thread` where it can run on one only. There the worker's write
 *   takes the request thread's CPU anyway, and costs more than the same
 *   write on the request thread: the thread wakes up cold for every batch
 *   (docs/traces.md, "Storage").
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { TraceConfig } from '../trace/config.ts'
import type { TraceSink } from '../trace/store.ts'
import { followTraceStoreFile, traceDatabaseUrl, type OpenTraceStoreOptions } from './traces.ts'
import type { TraceWorkerData, TraceWorkerReply, TraceWorkerRequest } from './trace-worker.ts'

export interface WorkerTraceSink extends TraceSink {
  /** Closes the store and ends the thread (after the writer's own close). */
  close(): Promise<void>
}

/** A sink chosen by `openTraceSink`, with the writer it runs. */
export interface NodeTraceSink extends WorkerTraceSink {
  readonly writer: 'worker' | 'thread'
}

export interface ThreadTraceSinkOptions {
  /** Batch text written between two checkpoints (default `CHECKPOINT_EVERY_BYTES`); for tests. */
  checkpointEveryBytes?: number
  /** Handed a function that ends the checkpoint thread abruptly, as a crash would; for tests of the fallback. */
  onCheckpointThread?: (kill: () => Promise<void>) => void
  /** Called each time a checkpoint ends, copied or not; for tests, which otherwise could only guess when it is done. */
  onCheckpointEnd?: () => void
}

/**
 * Batch text the thread writer writes between two checkpoints: about 9 MB
 * of log on the store's 16 KiB pages, where SQLite's own automatic
 * checkpoint would wait for 16 MB and then run on the request thread.
 */
export const CHECKPOINT_EVERY_BYTES = 8 * 1024 * 1024

/** `TRACE_WRITER` as this process runs it: `auto` is `thread` where the process can run on one CPU only. */
export function resolveTraceWriter(writer: TraceConfig['writer'], cpus: number = availableParallelism()): 'worker' | 'thread' {
  if (writer !== 'auto') return writer
  return cpus > 1 ? 'worker' : 'thread'
}

/** The sink `svc serve` writes traces through, as `writer` (TRACE_WRITER) says. */
export async function openTraceSink(store: OpenTraceStoreOptions, writer: TraceConfig['writer'] = 'auto'): Promise<NodeTraceSink> {
  const kind = resolveTraceWriter(writer)
  const sink = kind === 'worker' ? await workerTraceSink(store) : await threadTraceSink(store)
  return Object.assign(sink, { writer: kind })
}

/** Batches written by a worker thread that owns the store's connection (`TRACE_WRITER=worker`). */
export async function workerTraceSink(store: OpenTraceStoreOptions): Promise<WorkerTraceSink> {
  const worker = await startTraceWorker(store)
  return {
    write: (batch, dropped) => worker.send({ type: 'write', batch, dropped }),
    async prune(options) {
      return (await worker.send({ type: 'prune', options })) ?? 0
    },
    async droppedCount() {
      return (await worker.send({ type: 'dropped' })) ?? 0
    },
    close: () => worker.close(),
  }
}

/**
 * Batches written on this thread, with no busy timeout (a locked store is
 * tried again later by the writer, never waited for), and the store's log
 * checkpointed by a worker thread every `checkpointEveryBytes` of batch
 * text (`TRACE_WRITER=thread`). Should that thread be gone, this one
 * checkpoints, as SQLite would have. A store on a server (`libsql://`) has
 * no log here to checkpoint, and no thread is started.
 */
export async function threadTraceSink(store: OpenTraceStoreOptions, options: ThreadTraceSinkOptions = {}): Promise<WorkerTraceSink> {
  const local = traceDatabaseUrl(store).startsWith('file:')
  const own = await followTraceStoreFile({ ...store, busyTimeoutMs: 0, ...(local ? { walAutocheckpoint: 0 } : {}) })
  const sink: TraceSink = {
    write: async (batch, dropped) => (await own.current()).writeBatch(batch, dropped),
    prune: async (options) => (await own.current()).prune(options),
    droppedCount: async () => (await own.current()).droppedCount(),
  }
  if (!local) return { ...sink, close: async () => own.close() }
  let checkpointer: TraceWorker
  try {
    checkpointer = await startTraceWorker(store)
  } catch (error) {
    own.close()
    throw error
  }
  options.onCheckpointThread?.(checkpointer.kill)
  const every = options.checkpointEveryBytes ?? CHECKPOINT_EVERY_BYTES
  let sinceCheckpoint = 0
  let checkpointing: Promise<unknown> | undefined
  let threadFailed = false
  let closing = false
  const checkpoint = () => {
    const onThread = !threadFailed && checkpointer.alive()
    const run = onThread ? checkpointer.send({ type: 'checkpoint' }) : own.current().then((current) => current.checkpoint())
    checkpointing = run
      .catch(() => {
        // A log not copied now is copied by the next checkpoint; a thread that failed is not asked again
        // (it is still closed with the sink).
        if (onThread) threadFailed = true
      })
      .finally(() => {
        checkpointing = undefined
        options.onCheckpointEnd?.()
        // Writes that came while it ran may already owe the next one: asked now, not at a write that may not come.
        if (sinceCheckpoint >= every && !closing) {
          sinceCheckpoint = 0
          checkpoint()
        }
      })
  }
  return {
    async write(batch, dropped) {
      const result = await sink.write(batch, dropped)
      sinceCheckpoint += batch?.data.length ?? 0
      if (sinceCheckpoint >= every && checkpointing === undefined) {
        sinceCheckpoint = 0
        checkpoint()
      }
      return result
    },
    prune: sink.prune,
    droppedCount: sink.droppedCount,
    async close() {
      closing = true
      // One that ended as close began may have started the one it owed.
      while (checkpointing !== undefined) await checkpointing
      try {
        await checkpointer.close()
      } finally {
        // The last connection to close copies the rest of the log back.
        own.close()
      }
    },
  }
}

type Body<T> = T extends unknown ? Omit<T, 'id'> : never

interface TraceWorker {
  send(request: Body<TraceWorkerRequest>): Promise<number | undefined>
  /** False once the thread has exited. */
  alive(): boolean
  /** Closes its store and ends the thread. */
  close(): Promise<void>
  /** Ends the thread at once, its store left as it is. */
  kill(): Promise<void>
}

/** A worker thread with its own connection to the store (`trace-worker.ts`), started once the store is open there. */
async function startTraceWorker(store: OpenTraceStoreOptions): Promise<TraceWorker> {
  // From sources (tests) the worker is TypeScript: jiti loads it, as the CLI loads apps.
  const fromSource = import.meta.url.endsWith('.ts')
  const worker = new Worker(new URL(fromSource ? './trace-worker.ts' : './trace-worker.js', import.meta.url), {
    workerData: { store } satisfies TraceWorkerData,
    execArgv: fromSource ? ['--import', 'jiti/register'] : [],
  })
  const waiting = new Map<number, { resolve: (result: number | undefined) => void; reject: (error: Error) => void }>()
  let next = 0
  let exited: Error | undefined

  await new Promise<void>((resolve, reject: (error: Error) => void) => {
    const onMessage = (message: TraceWorkerReply) => {
      if (message.type === 'ready') resolve()
      else if (message.type === 'failed') {
        reject(new Error(message.error))
        void worker.terminate()
      }
      else {
        const entry = waiting.get(message.id)
        waiting.delete(message.id)
        if (waiting.size === 0) worker.unref()
        if (message.error !== undefined) entry?.reject(new Error(message.error))
        else entry?.resolve(message.result)
      }
    }
    worker.on('message', onMessage)
    worker.once('error', reject)
    worker.on('exit', (code) => {
      exited = new Error(`the trace writer thread exited (code ${code})`)
      for (const entry of waiting.values()) entry.reject(exited)
      waiting.clear()
      reject(exited)
    })
  })
  // Idle, the thread must not keep the process alive; while a request waits for it, it must.
  worker.unref()

  const send = (request: Body<TraceWorkerRequest>): Promise<number | undefined> => {
    if (exited !== undefined) return Promise.reject(exited)
    const id = ++next
    worker.ref()
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject })
      worker.postMessage({ ...request, id })
    })
  }

  return {
    send,
    alive: () => exited === undefined,
    async close() {
      if (exited !== undefined) return
      await send({ type: 'close' })
      await worker.terminate()
    },
    async kill() {
      await worker.terminate()
    },
  }
}
