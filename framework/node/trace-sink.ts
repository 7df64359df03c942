/**
 * The trace sink `TRACE_WRITER=worker` uses on Node: a worker thread that
 * owns the trace store's connection. The request thread posts each encoded
 * batch (one string); the SQLite write, the largest part of what tracing
 * costs, happens on another core.
 */
import { Worker } from 'node:worker_threads'
import type { TraceSink } from '../trace/store.ts'
import type { OpenTraceStoreOptions } from './traces.ts'
import type { TraceWorkerData, TraceWorkerReply, TraceWorkerRequest } from './trace-worker.ts'

export interface WorkerTraceSink extends TraceSink {
  /** Closes the store and ends the thread (after the writer's own close). */
  close(): Promise<void>
}

type Body<T> = T extends unknown ? Omit<T, 'id'> : never

export async function workerTraceSink(store: OpenTraceStoreOptions): Promise<WorkerTraceSink> {
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
    write: (batch, dropped) => send({ type: 'write', batch, dropped }),
    async prune(options) {
      return (await send({ type: 'prune', options })) ?? 0
    },
    async droppedCount() {
      return (await send({ type: 'dropped' })) ?? 0
    },
    async close() {
      if (exited !== undefined) return
      await send({ type: 'close' })
      await worker.terminate()
    },
  }
}
