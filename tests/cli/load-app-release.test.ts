/**
 * An app loaded in process (tests, tinker, the language server) installs its
 * listeners, queue and listener services in the process's event registry;
 * closing it takes them back. Left behind, the next app in the same process
 * (a test file run after another in one worker) handed its events to the
 * closed app's listeners and queue: its post creates answered 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenerNamed } from '../../framework/index.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, svcEnv, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'

let app: AppCopy

beforeAll(async () => {
  app = copyExampleApp('blog')
  app.write('.env', 'APP_ENV=development\nJWT_SECRET=load-app-release-secret-0123456789abcdef\n')
  const migrated = await runSvc(['migrate'], { cwd: app.dir })
  expect(migrated.exitCode, migrated.stderr).toBe(0)
}, 60_000)

afterAll(() => app?.remove())

describe('loadApp().close()', () => {
  it("forgets the app's listeners", async () => {
    const loaded = await loadApp(findProject(app.dir, svcEnv()), { trace: false })
    try {
      expect(listenerNamed('mail-author')).toBeDefined()
    } finally {
      await loaded.close()
    }
    expect(listenerNamed('mail-author')).toBeUndefined()
  })

  it('leaves those of an app loaded after it', async () => {
    const first = await loadApp(findProject(app.dir, svcEnv()), { trace: false })
    let second: Awaited<ReturnType<typeof loadApp>> | undefined
    let seconds: ReturnType<typeof listenerNamed>
    try {
      second = await loadApp(findProject(app.dir, svcEnv()), { trace: false })
      seconds = listenerNamed('mail-author')
    } finally {
      await first.close()
    }
    try {
      // Each load imports the app afresh: the second app's listener is an object of its own, and it stays.
      expect(seconds).toBeDefined()
      expect(listenerNamed('mail-author')).toBe(seconds)
    } finally {
      await second?.close()
    }
    expect(listenerNamed('mail-author')).toBeUndefined()
  })
})
