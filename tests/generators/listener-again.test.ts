/**
 * `make:listener <existing> --event=<another>`: the listener of that name
 * listens to another event, so keeping it and writing the new event would be
 * half of what was asked. The command refuses before writing anything, and
 * says the two ways out; `--force` rewrites the listener for the new event.
 * Run again for the event it already has, it changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { appFiles } from './helpers.ts'

let app: AppCopy

beforeAll(async () => {
  app = copyExampleApp()
  expect((await runSvc(['make:listener', 'NotifyTeam', '--event=TaskCreated'], { cwd: app.dir })).exitCode).toBe(0)
  // The app's own handle: the listener now differs from what the generator writes.
  app.write('app/listeners/notify-team.ts', app.read('app', 'listeners', 'notify-team.ts').replace("console.info('TaskCreated', event)", 'void event'))
})
afterAll(() => app?.remove())

describe('make:listener on a listener that exists', () => {
  it('refuses another event before writing anything (not even the event), naming both fixes', async () => {
    const before = appFiles(app)
    const refused = await runSvc(['make:listener', 'NotifyTeam', '--event=TaskDone', '--json'], { cwd: app.dir })
    expect(refused.exitCode).toBe(1)
    const { error } = JSON.parse(refused.stdout) as { error: { code: string; message: string; fix: string } }
    expect(error.code).toBe('E_EXISTS')
    expect(error.message).toContain('app/listeners/notify-team.ts, which listens to TaskCreated, not TaskDone')
    expect(error.fix).toContain('svc make:listener NotifyTeamOnTaskDone --event=TaskDone')
    expect(error.fix).toContain('add --force')
    expect(appFiles(app)).toEqual(before)
  })

  it('keeps an edited listener of the same event (nothing asked is missing)', async () => {
    const before = appFiles(app)
    const again = await runSvc(['make:listener', 'NotifyTeam', '--event=TaskCreated'], { cwd: app.dir })
    expect(again.exitCode).toBe(0)
    expect(again.stdout).toContain('app/listeners/notify-team.ts (differs; --force overwrites it)')
    expect(appFiles(app)).toEqual(before)
  })

  it('with --force, rewrites the listener for the new event and writes the event', async () => {
    const forced = await runSvc(['make:listener', 'NotifyTeam', '--event=TaskDone', '--force'], { cwd: app.dir })
    expect(forced.exitCode, forced.stderr).toBe(0)
    expect(app.read('app', 'listeners', 'notify-team.ts')).toContain('defineListener(TaskDone, {')
    expect(app.read('app', 'events', 'task-done.ts')).toContain('export class TaskDone')
  })
})
