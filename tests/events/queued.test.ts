/**
 * Queued listeners: with a listener queue installed, emit() dispatches a
 * `queued: true` listener as the svc.listener job instead of running it; the
 * worker finds it by name and runs it on the event rebuilt as an instance of
 * its class. Listeners that are not queued still run during emit().
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  createQueue,
  databaseQueueDriver,
  defineListener,
  emit,
  forget,
  jobRegistry,
  listen,
  listenerJob,
  listenerQueue,
  migrate,
  queueMigration,
  runWorker,
  syncQueueDriver,
  useListenerQueue,
  useListenerServices,
  resolveConfig,
  type Database,
  type JobDefinition,
  type ListenerContext,
  type WorkerEvent,
} from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'

class PostPublished {
  constructor(
    readonly postId: number,
    readonly title: string,
  ) {}
  get headline(): string {
    return `#${this.postId}: ${this.title}`
  }
}

const seen: string[] = []
/** The context the queued listener last ran with. */
let lastContext: ListenerContext | undefined
const inline = defineListener(PostPublished, { name: 'log-publication', handle: (event) => void seen.push(`inline ${event.headline}`) })
const queued = defineListener(PostPublished, {
  name: 'notify-subscribers',
  queued: true,
  handle: (event, context) => {
    if (!(event instanceof PostPublished)) throw new Error('not rebuilt as a PostPublished')
    lastContext = context
    seen.push(`queued ${event.headline}`)
  },
})

let dir: string
let db: Database

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-listeners-'))
  db = await openDatabase({ storageDir: dir, projectDir: dir })
  await migrate(db, [queueMigration])
  listen(inline, queued)
})

afterAll(() => {
  forget(inline, queued)
  useListenerQueue(undefined)
  db?.close()
  rmSync(dir, { recursive: true, force: true })
})

afterEach(() => {
  seen.length = 0
  lastContext = undefined
})

describe('queued listeners', () => {
  it('run in emit() while no queue is installed, with the services installed for them', async () => {
    useListenerQueue(undefined)
    useListenerServices({ config: resolveConfig({ APP_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }) })
    await emit(new PostPublished(1, 'Hello'))
    useListenerServices({})
    expect(seen).toEqual(['inline #1: Hello', 'queued #1: Hello'])
    expect(lastContext?.config.env).toBe('production')
  })

  it('are dispatched to the queue, and the worker runs them on the rebuilt event', async () => {
    const queue = createQueue(databaseQueueDriver(db))
    useListenerQueue(listenerQueue(queue))
    await emit(new PostPublished(2, 'Queued'))
    expect(seen).toEqual(['inline #2: Queued'])
    const stored = await db.all<{ name: string; payload: string }>('select name, payload from jobs')
    expect(stored).toEqual([{ name: 'svc.listener', payload: JSON.stringify({ listener: 'notify-subscribers', event: { postId: 2, title: 'Queued' } }) }])

    const config = resolveConfig({ APP_ENV: 'test' })
    const summary = await runWorker({ driver: queue.driver, jobs: jobRegistry([listenerJob as JobDefinition<never>]), queues: ['default'], services: { config }, leaseMs: 10_000, timeoutMs: 5000, stopWhenEmpty: true })
    expect(summary).toMatchObject({ processed: 1, failed: 0 })
    expect(seen).toEqual(['inline #2: Queued', 'queued #2: Queued'])
    // The worker's services reach the listener; one it was not given is a stand-in that says so when used.
    expect(lastContext?.config.env).toBe('test')
    expect(() => lastContext?.db.execute('select 1')).toThrow("This job's worker was given no db (services.db), so db.execute cannot be used here")
  })

  it('run at once on the sync driver', async () => {
    useListenerQueue(listenerQueue(createQueue(syncQueueDriver())))
    await emit(new PostPublished(3, 'Sync'))
    expect(seen).toEqual(['inline #3: Sync', 'queued #3: Sync'])
  })

  it('a listener the worker does not know fails for good, saying so', async () => {
    const driver = databaseQueueDriver(db)
    await createQueue(driver).dispatch(listenerJob, { listener: 'gone', event: {} })
    const events: WorkerEvent[] = []
    await runWorker({ driver, jobs: jobRegistry([listenerJob as JobDefinition<never>]), queues: ['default'], services: {}, leaseMs: 10_000, timeoutMs: 5000, stopWhenEmpty: true, onEvent: (event) => events.push(event) })
    // The worker's events name the listener (queue:work prints `svc.listener gone #1`).
    expect(events.map((event) => (event.type === 'started' ? event.job.subject : event.type === 'finished' ? event.result.job.subject : event.type))).toEqual(['gone', 'gone'])
    const [failed] = await driver.failed()
    expect(failed).toMatchObject({ name: 'svc.listener', attempts: 1, error: 'PermanentJobError: No listener named "gone" is registered (is it in app/listeners/index.ts?)' })
  })

  it('a payload without a listener name still runs (and fails) with no subject', async () => {
    const driver = databaseQueueDriver(db)
    await createQueue(driver).dispatch(listenerJob, { event: {} } as never)
    const events: WorkerEvent[] = []
    await runWorker({ driver, jobs: jobRegistry([listenerJob as JobDefinition<never>]), queues: ['default'], services: {}, leaseMs: 10_000, timeoutMs: 5000, stopWhenEmpty: true, onEvent: (event) => events.push(event) })
    expect(events.map((event) => event.type === 'finished' && { outcome: event.result.outcome, subject: event.result.job.subject })).toEqual([false, { outcome: 'failed', subject: undefined }])
  })
})
