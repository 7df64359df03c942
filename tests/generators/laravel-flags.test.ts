/**
 * The short flags Laravel's artisan users type for the generators svc shares
 * with it: `make:model Post -m` writes the model and its migration, as
 * `--migration` does. And the next step a generator prints names what it
 * made (`svc make:seeder Gadget`, not `<Name>`).
 */
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

describe('the next step', () => {
  it('names what was made', async () => {
    expect((await runSvc(['make:factory', 'Gadget'], { cwd: app.dir })).stderr).toContain('Next: svc make:seeder Gadget.')
    expect((await runSvc(['make:event', 'GadgetShipped'], { cwd: app.dir })).stderr).toContain('Next: svc make:listener <Name> --event=GadgetShipped.')
  })
})
