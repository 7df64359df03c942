/**
 * The short flags Laravel's artisan users type for the generators svc shares
 * with it: `make:model Post -m` writes the model and its migration, as
 * `--migration` does. And the next step a generator prints names what it
 * made (`svc make:seeder Gadget`, not `<Name>`).
 */
import { readdirSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeJson } from '../../cli/contract/index.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => {
  app = copyExampleApp()
})
afterAll(() => app.remove())

describe('make:model -m', () => {
  it('writes the create-table migration too', async () => {
    const made = await svcJson<MakeJson>(['make:model', 'Gadget', '-m', '--fields=label:string'], { cwd: app.dir })
    expect(made.written).toEqual(['app/models/gadget.ts', expect.stringMatching(/^database\/migrations\/\d{14}_create_gadgets_table\.ts$/)])
  })
})

describe('make:listener --queued', () => {
  // artisan's make:listener --queued: the listener emit() hands to the queue. It was an unknown option.
  it('writes a listener with queued: true, and says that a worker runs it', async () => {
    const made = await runSvc(['make:listener', 'MailGadgetOwner', '--event=GadgetLost', '--queued'], { cwd: app.dir })
    expect(made.exitCode, made.stderr).toBe(0)
    const listener = app.read('app', 'listeners', 'mail-gadget-owner.ts')
    expect(listener).toContain('  queued: true,\n')
    expect(made.stderr).toContain('Next: svc queue:work runs it (QUEUE_CONNECTION=sync and the tests run it at once).')
    expect(app.read('app', 'listeners', 'index.ts')).toContain("import mailGadgetOwner from './mail-gadget-owner.ts'")
    // Without the flag, as before.
    expect((await runSvc(['make:listener', 'LogGadget', '--event=GadgetLost'], { cwd: app.dir })).exitCode).toBe(0)
    expect(app.read('app', 'listeners', 'log-gadget.ts')).toContain('  queued: false,\n')
  })

  // Queued with the database driver (the default) needs the jobs table: without it, emit() fails the request.
  it('in an app without the queue tables, the next step starts with svc make:queue-table', async () => {
    const bare = copyExampleApp()
    try {
      for (const file of readdirSync(bare.path('database', 'migrations')).filter((name) => name.endsWith('_create_jobs_table.ts'))) rmSync(bare.path('database', 'migrations', file))
      const made = await runSvc(['make:listener', 'MailOwner', '--event=GadgetLost', '--queued'], { cwd: bare.dir })
      expect(made.exitCode, made.stderr).toBe(0)
      expect(made.stderr).toContain(
        'Next: svc make:queue-table, then svc migrate (a queued listener goes through the jobs table), then svc queue:work runs it (QUEUE_CONNECTION=sync and the tests run it at once).',
      )
    } finally {
      bare.remove()
    }
  })
})

describe('the next step', () => {
  it('names what was made', async () => {
    expect((await runSvc(['make:factory', 'Gadget'], { cwd: app.dir })).stderr).toContain('Next: svc make:seeder Gadget.')
    expect((await runSvc(['make:event', 'GadgetShipped'], { cwd: app.dir })).stderr).toContain('Next: svc make:listener <Name> --event=GadgetShipped.')
    // The identifier each file exports, not a placeholder (<mail>, <job>, name(), rule(), Schema).
    expect((await runSvc(['make:mail', 'GadgetShipped'], { cwd: app.dir })).stderr).toContain('Next: await c.mailer.send(gadgetShippedMail.to(address, data)).')
    expect((await runSvc(['make:job', 'ShipGadget'], { cwd: app.dir })).stderr).toContain('Next: await c.queue.dispatch(shipGadget, payload), then svc queue:work.')
    expect((await runSvc(['make:middleware', 'GadgetTimer'], { cwd: app.dir })).stderr).toContain('Next: attach it: .middleware(gadgetTimer()) on a route or group, or app/kernel.ts.')
    expect((await runSvc(['make:rule', 'GadgetCode'], { cwd: app.dir })).stderr).toContain('Next: use it in a schema: v.pipe(v.string(), gadgetCode()).')
    expect((await runSvc(['make:request', 'StoreGadget', '--fields=label:string'], { cwd: app.dir })).stderr).toContain('Next: declare it on its route: .body(StoreGadgetRequest).')
  })

  // A bare package (docs/getting-started.md) has no users: make:crud's routes take a token, and its test's tokenFor
  // failed (`tokenFor needs the users table ... run svc make:auth`) after a Next of "svc migrate, then npm test".
  it('make:crud in an app without make:auth names svc make:auth first; with --public, or with the users table, it does not', async () => {
    const bare = copyExampleApp()
    try {
      for (const file of readdirSync(bare.path('database', 'migrations')).filter((name) => name.endsWith('_create_users_table.ts'))) rmSync(bare.path('database', 'migrations', file))
      const made = await runSvc(['make:crud', 'Note', '--fields=body:text', '--seed'], { cwd: bare.dir })
      expect(made.exitCode, made.stderr).toBe(0)
      expect(made.stderr).toContain('Next: svc make:auth (the routes take a signed-in user; or make:crud --public), then svc migrate, then svc db:seed, then npm test.')
      const open = await runSvc(['make:crud', 'Tag', '--fields=name:string', '--public'], { cwd: bare.dir })
      expect(open.stderr).toContain('Next: svc migrate, then npm test.')
    } finally {
      bare.remove()
    }
    expect((await runSvc(['make:crud', 'Memo', '--fields=body:text'], { cwd: app.dir })).stderr).toContain('Next: svc migrate, then npm test.')
  })

  it('make:model without -m names the migration its table still needs, not svc migrate alone', async () => {
    const alone = await runSvc(['make:model', 'Widget', '--fields=label:string,size:integer?'], { cwd: app.dir })
    expect(alone.exitCode).toBe(0)
    expect(alone.stderr).toContain(
      'Next: svc make:migration create_widgets_table --fields=label:string,size:integer? (no migration creates widgets), then svc migrate.',
    )
    // A table a migration already creates (make:model Gadget -m above) needs only migrating.
    expect((await runSvc(['make:model', 'Gadget', '--force'], { cwd: app.dir })).stderr).toContain('Next: svc migrate.')
  })

  // make:factory and make:repository write the model when the app lacks it too: their Next said only `svc make:seeder Gizmo`
  // (or nothing), and db:seed then failed on the missing table.
  it('make:factory and make:repository name the migration the model\'s table needs', async () => {
    const factory = await runSvc(['make:factory', 'Gizmo', '--fields=label:string'], { cwd: app.dir })
    expect(factory.exitCode, factory.stderr).toBe(0)
    expect(factory.stdout).toContain('Created app/models/gizmo.ts')
    expect(factory.stderr).toContain('Next: svc make:migration create_gizmos_table --fields=label:string (no migration creates gizmos), then svc migrate, then svc make:seeder Gizmo.')
    const repository = await runSvc(['make:repository', 'Gizmo'], { cwd: app.dir })
    expect(repository.stderr).toContain('Next: svc make:migration create_gizmos_table --fields=label:string (no migration creates gizmos), then svc migrate.')
    // A table a migration creates: the seeder is next.
    expect((await runSvc(['make:model', 'Doohickey', '-m', '--fields=label:string'], { cwd: app.dir })).exitCode).toBe(0)
    expect((await runSvc(['make:factory', 'Doohickey'], { cwd: app.dir })).stderr).toContain('Next: svc make:seeder Doohickey.')
  })

  // make:controller --resource writes the model when the app lacks it: its handlers then failed at their first
  // request (no such table) after a Next that said only to attach them.
  it('make:controller --resource that writes the model names the migration its table needs, then the routes', async () => {
    const made = await runSvc(['make:controller', 'Label', '--resource', '--fields=text:string,pinned:boolean'], { cwd: app.dir })
    expect(made.exitCode).toBe(0)
    expect(made.stdout).toContain('Created app/models/label.ts')
    expect(made.stderr).toContain(
      'Next: svc make:migration create_labels_table --fields=text:string,pinned:boolean (no migration creates labels), then svc migrate, then attach the handlers in routes/api.ts.',
    )
    // With its table created by a migration, attaching the handlers is all that is left.
    expect((await runSvc(['make:controller', 'Gadget', '--resource', '--fields=label:string'], { cwd: app.dir })).stderr).toContain('Next: attach the handlers in routes/api.ts.')
  })
})
