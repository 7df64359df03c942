/**
 * A request's trace shows the events it emitted (`emit(event, c)`) and what
 * each listener did: ran (with its time), was handed to the queue, or failed
 * (with its message). Before, neither showed: not even the queued listener's
 * insert into `jobs`, which runs on the app's own handle, not `c.db`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueue, defineListener, defineRoutes, emit, forget, listen, listenerQueue, syncQueueDriver, useListenerQueue, type FailedJob, type Listener } from 'svc'
import { decodeBatch, encodeBatch, MAX_TRACE_EVENTS } from 'svc/trace'
import { recordOf, request, traceRecord, tracedApp, type TracedApp } from './helpers.ts'

class TaskCreated {
  constructor(readonly taskId: number) {}
}
class TaskViewed {
  constructor(readonly taskId: number) {}
}
class NobodyListens {}

const pushed: string[] = []
const logTask = defineListener(TaskCreated, { name: 'log-task', handle: () => {} })
const mailOwner = defineListener(TaskCreated, { name: 'mail-owner', queued: true, handle: () => {} })
const audit = defineListener(TaskCreated, {
  name: 'audit',
  handle: (event) => {
    if (event.taskId === 13) throw new Error('audit log is full')
  },
})
const countView = defineListener(TaskViewed, { name: 'count-view', handle: () => {} })

const api = defineRoutes((r) => {
  r.post('/tasks/{id}', async (c) => {
    await emit(new TaskCreated(Number(c.params.id)), c)
    return c.json({ id: Number(c.params.id) }, { status: 201 })
  })
  r.post('/tasks/{id}/caught', async (c) => {
    // The handler answers despite the listener: the failure is in the event alone, not the exception.
    await emit(new TaskCreated(Number(c.params.id)), c).catch(() => {})
    return c.json({ id: Number(c.params.id) }, { status: 202 })
  })
  r.get('/quiet', () => ({ ok: true }))
  r.get('/untold', async () => {
    // Without `c`, emit cannot tell which request it belongs to: nothing is recorded.
    await emit(new TaskViewed(1))
    return { ok: true }
  })
  r.get('/many', async (c) => {
    for (let i = 0; i < MAX_TRACE_EVENTS + 5; i++) await emit(new TaskViewed(i), c)
    await emit(new NobodyListens(), c)
    return { ok: true }
  })
})

let traced: TracedApp | undefined
const registered: Listener[] = []
function register(...listeners: Listener[]) {
  registered.push(...listeners)
  listen(...listeners)
}
afterEach(async () => {
  vi.restoreAllMocks()
  forget(...registered.splice(0))
  useListenerQueue(undefined)
  pushed.length = 0
  await traced?.close()
  traced = undefined
})

describe('events in a trace', () => {
  it('records each event with its plain and queued listeners, and the one that failed with its message', async () => {
    register(logTask, mailOwner, audit, countView)
    useListenerQueue({ push: async (listener) => void pushed.push(listener.name) })
    traced = await tracedApp({ api })

    const created = await traced.app.fetch(request('POST', '/api/tasks/7'))
    expect(created.status).toBe(201)
    const ok = await recordOf(traced, created)
    expect(pushed).toEqual(['mail-owner'])
    expect(ok.events).toHaveLength(1)
    const [event] = ok.events
    expect(event).toMatchObject({
      name: 'TaskCreated',
      listeners: [
        { name: 'log-task', queued: false, error: null },
        { name: 'mail-owner', queued: true, duration_ms: null, error: null },
        { name: 'audit', queued: false, error: null },
      ],
    })
    expect(event!.start_ms).toBeGreaterThanOrEqual(0)
    expect(event!.start_ms).toBeLessThanOrEqual(ok.duration_ms)
    expect(event!.duration_ms).toBeGreaterThanOrEqual(0)
    expect(typeof event!.listeners[0]!.duration_ms).toBe('number')
    expect(ok.events_omitted).toBe(0)

    const failed = await traced.app.fetch(request('POST', '/api/tasks/13'))
    expect(failed.status).toBe(500)
    const record = await recordOf(traced, failed)
    expect(record.exception).toMatchObject({ message: 'audit log is full' })
    expect(record.events).toMatchObject([
      {
        name: 'TaskCreated',
        listeners: [
          { name: 'log-task', queued: false, error: null },
          { name: 'mail-owner', queued: true, duration_ms: null, error: null },
          { name: 'audit', queued: false, error: 'audit log is full' },
        ],
      },
    ])
  })

  it('records a queued listener the queue refused, with the queue’s message', async () => {
    register(mailOwner)
    useListenerQueue({
      push: async () => {
        throw new Error('no such table: jobs')
      },
    })
    traced = await tracedApp({ api })
    const record = await recordOf(traced, await traced.app.fetch(request('POST', '/api/tasks/8')))
    expect(record.status_code).toBe(500)
    expect(record.events[0]!.listeners).toEqual([{ name: 'mail-owner', queued: true, duration_ms: null, error: 'no such table: jobs' }])
  })

  it('records a queued listener that failed under the sync driver as queued and failed, redacted, and the request answers as it would', async () => {
    // The default local setup (QUEUE_CONNECTION=sync): the job runs inside emit; its failure used to reach stderr only, the trace said "queued".
    const mailDown = defineListener(TaskCreated, {
      name: 'mail-down',
      queued: true,
      handle: () => {
        throw new Error('SMTP refused the key sk-live-0123456789abcdef; password=hunter2hunter2')
      },
    })
    const reported: FailedJob[] = []
    register(mailDown, logTask)
    useListenerQueue(listenerQueue(createQueue(syncQueueDriver({ onFailed: (job) => void reported.push(job) }))))
    traced = await tracedApp({ api })

    const response = await traced.app.fetch(request('POST', '/api/tasks/21', { headers: { 'x-api-key': 'sk-live-0123456789abcdef' } }))
    // As with a real queue, the listener's failure is not the request's: it answered, and the next listener ran.
    expect(response.status).toBe(201)
    const record = await recordOf(traced, response)
    expect(record.exception).toBeNull()
    const [failed, next] = record.events[0]!.listeners
    expect(failed).toMatchObject({ name: 'mail-down', queued: true, duration_ms: null })
    expect(failed!.error).toContain('SMTP refused the key')
    expect(failed!.error).toContain('[REDACTED]')
    expect(failed!.error).not.toContain('sk-live-0123456789abcdef')
    expect(failed!.error).not.toContain('hunter2hunter2')
    expect(next).toMatchObject({ name: 'log-task', queued: false, error: null })
    // Still kept and reported by the driver, after its 3 attempts.
    expect(reported).toMatchObject([{ name: 'svc.listener', attempts: 3 }])
  })

  it('records a queued listener that succeeded under the sync driver as queued, with no error', async () => {
    register(mailOwner)
    useListenerQueue(listenerQueue(createQueue(syncQueueDriver())))
    traced = await tracedApp({ api })
    const record = await recordOf(traced, await traced.app.fetch(request('POST', '/api/tasks/22')))
    expect(record.events[0]!.listeners).toEqual([{ name: 'mail-owner', queued: true, duration_ms: null, error: null }])
  })

  it('redacts a listener’s message as an exception’s: a secret of the request it echoes is not stored', async () => {
    const echo = defineListener(TaskCreated, {
      name: 'echo-token',
      handle: () => {
        throw new Error('the key sk-live-0123456789abcdef was refused; password=hunter2hunter2')
      },
    })
    register(echo)
    traced = await tracedApp({ api })
    const response = await traced.app.fetch(request('POST', '/api/tasks/9/caught', { headers: { 'x-api-key': 'sk-live-0123456789abcdef' } }))
    expect(response.status).toBe(202)
    const record = await recordOf(traced, response)
    expect(record.exception).toBeNull()
    const message = record.events[0]!.listeners[0]!.error!
    expect(message).not.toContain('sk-live-0123456789abcdef')
    expect(message).not.toContain('hunter2hunter2')
    expect(message).toContain('[REDACTED]')
  })

  it('keeps a request that emits nothing (or emits without c) at events [], and caps a loop, counting the rest', async () => {
    register(countView)
    traced = await tracedApp({ api })
    const quiet = await recordOf(traced, await traced.app.fetch(request('GET', '/api/quiet')))
    expect(quiet.events).toEqual([])
    expect(quiet.events_omitted).toBe(0)
    const untold = await recordOf(traced, await traced.app.fetch(request('GET', '/api/untold')))
    expect(untold.events).toEqual([])

    const many = await recordOf(traced, await traced.app.fetch(request('GET', '/api/many')))
    expect(many.events).toHaveLength(MAX_TRACE_EVENTS)
    expect(many.events_omitted).toBe(6)
    expect(many.events[0]).toMatchObject({ name: 'TaskViewed', listeners: [{ name: 'count-view', queued: false, error: null }] })
  })

  it('reads records stored before events were recorded as events [] and events_omitted 0', () => {
    const old = (n: number) => {
      const { events: _events, events_omitted: _omitted, ...rest } = traceRecord(n)
      return rest
    }
    const stored = encodeBatch([old(1), old(2)] as never, [0, 1]).data
    expect(stored).not.toContain('"events"')
    for (const record of decodeBatch(stored)) {
      expect(record.events).toEqual([])
      expect(record.events_omitted).toBe(0)
    }
    // The oldest format: a plain array of records.
    const [first] = decodeBatch(JSON.stringify([old(3)]))
    expect(first!.events).toEqual([])
  })
})
