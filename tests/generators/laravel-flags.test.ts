/**
 * The short flags Laravel's artisan users type for the generators svc shares
 * with it: `make:model Post -m` writes the model and its migration, as
 * `--migration` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeJson } from '../../cli/contract/index.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { svcJson } from '../helpers/run-svc.ts'

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
