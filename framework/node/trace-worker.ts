/**
 * The trace writer's thread: builds the records (redaction, N+1, JSON) and
 * writes them to the trace store, so that none of it runs on the thread
 * that answers requests. Started by `workerTraceSink`.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { recordJson, type RawTrace } from '../trace/capture.ts'
import type { TraceConfig } from '../trace/config.ts'
import { openTraceStore, type OpenTraceStoreOptions } from './traces.ts'

export interface TraceWorkerData {
  store: OpenTraceStoreOptions
  config: TraceConfig
}

export type TraceWorkerRequest =
  | { id: number; type: 'write'; traces: RawTrace[]; dropped: number; memoryMb: number | null }
  | { id: number; type: 'prune'; options: { olderThanMs?: number; maxTraces?: number } }
  | { id: number; type: 'close' }

export type TraceWorkerReply = { type: 'ready' } | { type: 'failed'; error: string } | { type: 'done'; id: number; result?: number; error?: string }

const port = parentPort!
const { store: storeOptions, config } = workerData as TraceWorkerData

try {
  const store = await openTraceStore(storeOptions)
  port.on('message', async (request: TraceWorkerRequest) => {
    const reply = (result?: number, error?: string) => port.postMessage({ type: 'done', id: request.id, result, error } satisfies TraceWorkerReply)
    try {
      if (request.type === 'write') {
        await store.writeBatch(
          request.traces.map((raw) => recordJson(raw, config, request.memoryMb)),
          request.traces.map((raw) => raw.started_epoch),
          request.dropped,
        )
        reply()
      } else if (request.type === 'prune') {
        reply(await store.prune(request.options))
      } else {
        store.close()
        reply()
        port.close()
      }
    } catch (error) {
      reply(undefined, error instanceof Error ? error.message : String(error))
    }
  })
  port.postMessage({ type: 'ready' } satisfies TraceWorkerReply)
} catch (error) {
  port.postMessage({ type: 'failed', error: error instanceof Error ? error.message : String(error) } satisfies TraceWorkerReply)
}
