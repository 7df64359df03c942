/**
 * The trace writer's thread: writes the batches the request thread encoded
 * to the trace store, so that no SQLite write runs on the thread that
 * answers requests (`workerTraceSink`); or, where the request thread writes
 * them itself, checkpoints the store's log, so that no checkpoint runs there
 * (`threadTraceSink`).
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { EncodedBatch } from '../trace/batch-codec.ts'
import { isLockError } from '../trace/store.ts'
import { followTraceStoreFile, type OpenTraceStoreOptions } from './traces.ts'

export interface TraceWorkerData {
  store: OpenTraceStoreOptions
}

export type TraceWorkerRequest =
  | { id: number; type: 'write'; batch: EncodedBatch | null; dropped: number }
  | { id: number; type: 'prune'; options: { olderThanMs?: number; maxTraces?: number } }
  | { id: number; type: 'dropped' }
  | { id: number; type: 'checkpoint' }
  | { id: number; type: 'close' }

export type TraceWorkerReply = { type: 'ready' } | { type: 'failed'; error: string } | { type: 'done'; id: number; result?: number; error?: string }

const port = parentPort!
const { store: storeOptions } = workerData as TraceWorkerData

try {
  const followed = await followTraceStoreFile(storeOptions)
  port.on('message', async (request: TraceWorkerRequest) => {
    const reply = (result?: number, error?: string) => port.postMessage({ type: 'done', id: request.id, result, error } satisfies TraceWorkerReply)
    try {
      if (request.type === 'close') {
        followed.close()
        reply()
        port.close()
        return
      }
      const store = await followed.current()
      if (request.type === 'write') {
        reply((await store.writeBatch(request.batch, request.dropped)) ?? undefined)
      } else if (request.type === 'prune') {
        reply(await store.prune(request.options))
      } else if (request.type === 'dropped') {
        reply(await store.droppedCount())
      } else {
        reply(await store.checkpoint())
      }
    } catch (error) {
      // The lock error's own text (the database layer may have wrapped it): the writer tries again on it.
      const message = error instanceof Error ? error.message : String(error)
      reply(undefined, isLockError(error) && !isLockError(message) ? `SQLITE_BUSY: ${message}` : message)
    }
  })
  port.postMessage({ type: 'ready' } satisfies TraceWorkerReply)
} catch (error) {
  port.postMessage({ type: 'failed', error: error instanceof Error ? error.message : String(error) } satisfies TraceWorkerReply)
}
