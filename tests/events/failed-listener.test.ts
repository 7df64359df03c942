/**
 * A queued listener that fails is named where the failure is shown: every
 * queued listener is the one job svc.listener, so its name alone did not say
 * which listener failed (queue:work's lines already named it).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
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
  runWorker,
  syncQueueDriver,
  useListenerQueue,
  type JobDefinition,
} from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'

class TaskCompleted {
  constructor(readonly id: number) {}
}

const notifyOwner = defineListener(TaskCompleted, {
  name: 'notify-owner',
  queued: true,
  handle: (event) => {
    throw new Error(`mail server down for task ${event.id}`)
  },
})

afterEach(() => {
  forget(notifyOwner)
  useListenerQueue(undefined)
  vi.restoreAllMocks()
})

describe('a queued listener that fails', () => {
  it('on the sync driver, is reported on stderr with its name', async () => {
    const errors: unknown[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args.join(' ')))
    listen(notifyOwner)
    useListenerQueue(listenerQueue(createQueue(syncQueueDriver())))
    await emit(new TaskCompleted(2))
    expect(errors).toEqual(['[svc queue] job svc.listener notify-owner #1 failed: mail server down for task 2'])
  })

  describe('with the database driver', () => {
    let app: AppCopy
    beforeAll(async () => {
      app = copyExampleApp()
      expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
    })
    afterAll(() => app?.remove())

    it('is named in queue:status, beside the job svc.listener', async () => {
      const db = await openDatabase({ storageDir: app.path('storage'), projectDir: app.dir })
      try {
        const driver = databaseQueueDriver(db)
        await createQueue(driver).dispatch(listenerJob, { listener: 'notify-owner', event: { id: 2 } }, { attempts: 1 })
        await runWorker({ driver, jobs: jobRegistry([listenerJob as JobDefinition<never>]), queues: ['default'], services: {}, leaseMs: 10_000, timeoutMs: 5000, stopWhenEmpty: true })
      } finally {
        db.close()
      }
      const status = await runSvc(['queue:status'], { cwd: app.dir })
      expect(status.exitCode).toBe(0)
      // The worker did not load the listener: it failed for good, naming it, and the table names it too.
      expect(status.stdout).toMatch(/^1 +default +svc\.listener notify-owner +1 +\S+ +PermanentJobError: No listener named "notify-owner" is registered/m)
    })
  })
})
