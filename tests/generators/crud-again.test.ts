/**
 * `make:crud` run again without the `--fields` it was first run with: its
 * default fields make every file differ, and the fix it prints must not lead
 * to `--force` alone (which would replace the resource's columns with the
 * default's): it names the model's columns and says to repeat `--fields`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeJson } from '../../cli/contract/index.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(async () => {
  app = copyExampleApp()
  await svcJson<MakeJson>(['make:crud', 'Category', '--fields=title:string,active:boolean'], { cwd: app.dir })
})
afterAll(() => app.remove())

describe('make:crud again without --fields', () => {
  it('refuses, naming the model columns and the --fields fix before --force', async () => {
    const before = app.read('app/models/category.ts')
    const again = await runSvc(['make:crud', 'category'], { cwd: app.dir })
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('E_EXISTS')
    expect(again.stderr).toContain(
      'fix: app/models/category.ts has the columns title, active, not the default name, description: run it with the --fields it was made with; or add --force',
    )
    expect(app.read('app/models/category.ts')).toBe(before)
  })

  it('with the same --fields, changes nothing; another name keeps the plain fix', async () => {
    const same = await svcJson<MakeJson>(['make:crud', 'Category', '--fields=title:string,active:boolean'], { cwd: app.dir })
    expect(same.written).toEqual([])
    const other = await runSvc(['make:crud', 'Category', '--fields=title:string'], { cwd: app.dir })
    expect(other.stderr).toContain('fix: add --force to overwrite those files, or pick another name')
  })
})
