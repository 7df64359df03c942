/**
 * svc's own tables (make:auth's users and tokens, the queue's jobs, the
 * idempotency keys, the API keys) are not a generator's to create: svc's
 * sign-up, login, queue and keys read their columns. `make:crud User` in a
 * new project used to end with `add --force to overwrite those files`, and
 * `--force` then replaced make:auth's users migration with one of name and
 * email only, so that registration answered 500 `no such column: password`.
 * Every generator that writes a create-table migration refuses them, with
 * or without --force, before anything is written, and says what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { appFiles, generatorApp } from './helpers.ts'

let app: AppCopy

beforeAll(() => {
  app = generatorApp()
})
afterAll(() => app?.remove())

describe("a create-table migration for one of svc's own tables", () => {
  it.each([
    [['make:crud', 'User', '--fields=name:string,email:string', '--force']],
    [['make:crud', 'User', '--fields=name:string,email:string']],
    [['make:model', 'User', '--fields=name:string', '--migration', '--force']],
    [['make:migration', 'create_users_table', '--fields=name:string', '--force']],
    [['make:crud', 'Job', '--fields=queue:string', '--force']],
  ])('svc %j is refused before anything is written, --force or not', async (args) => {
    const before = appFiles(app)
    const refused = await runSvc(args, { cwd: app.dir })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toMatch(/error \[E_BAD_NAME\]: .* would create (users|jobs), one of svc's own tables \(svc make:(auth|queue-table) writes its migration/)
    expect(refused.stderr).not.toContain('--force')
    expect(appFiles(app)).toEqual(before)
  })

  it('the fix for users names a table of the app that points at it, and a model over it as it is', async () => {
    const refused = await runSvc(['make:crud', 'User', '--fields=name:string,email:string'], { cwd: app.dir })
    expect(refused.stderr).toContain(
      "fix: pick another name for a table of your own (svc make:crud Profile --fields=...,user_id:references keeps more about each user); to read users in your routes, svc make:model User --fields=... (without --migration) models the table as it is",
    )
  })
})
