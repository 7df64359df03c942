/**
 * `make:migration add_<column>_to_<table>_table` with the singular typed for
 * the table (`person` for `people`): refused with the name that works, before
 * a migration is written that fails at `svc migrate` (`no such table`).
 */
import { readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeJson } from '../../cli/contract/index.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(async () => {
  app = copyExampleApp()
  await svcJson<MakeJson>(['make:model', 'Person', '--migration', '--fields=name:string'], { cwd: app.dir })
})
afterAll(() => app.remove())

const migrations = () => readdirSync(app.path('database', 'migrations')).sort()

describe('make:migration on a table the app does not create', () => {
  it.each([
    ['add_email_to_person_table', 'add_email_to_person_table', 'people', 'add_email_to_people_table'],
    ['add_slug_to_post_table', 'add_slug_to_post_table', 'posts', 'add_slug_to_posts_table'],
    ['AddRoleToUserTable', 'add_role_to_user_table', 'users', 'add_role_to_users_table'],
  ])('refuses %s (%s), naming the table %s and the migration that works', async (name, migration, table, fixed) => {
    const before = migrations()
    const refused = await runSvc(['make:migration', name, '--fields=extra:string?'], { cwd: app.dir })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain(`error [E_BAD_NAME]: ${migration} changes the table`)
    expect(refused.stderr).toContain(`the app's table is ${table}`)
    expect(refused.stderr).toContain(`fix: svc make:migration ${fixed}`)
    expect(migrations()).toEqual(before)
  })

  it('writes it for a table a migration creates, and for one no migration knows (made by hand)', async () => {
    expect((await svcJson<MakeJson>(['make:migration', 'add_email_to_people_table', '--fields=email:string?'], { cwd: app.dir })).written).toHaveLength(1)
    expect((await svcJson<MakeJson>(['make:migration', 'add_note_to_legacy_table', '--fields=note:text?'], { cwd: app.dir })).written).toHaveLength(1)
  })
})

describe('a kept migration the database has run', () => {
  let migrated: AppCopy
  beforeAll(async () => {
    migrated = copyExampleApp()
    await svcJson<MakeJson>(['make:model', 'Person', '--migration', '--fields=name:string'], { cwd: migrated.dir })
    await svcJson(['migrate'], { cwd: migrated.dir })
  })
  afterAll(() => migrated.remove())

  it('is marked applied (--json) and said so: --force will not rewrite it', async () => {
    const kept = await svcJson<MakeJson>(['make:model', 'Person', '-m', '--fields=name:string,age:integer?'], { cwd: migrated.dir })
    expect(kept.skipped).toEqual([
      { path: 'app/models/person.ts', identical: false },
      { path: expect.stringMatching(/^database\/migrations\/\d{14}_create_people_table\.ts$/), identical: false, applied: true },
    ])
    const human = await runSvc(['make:model', 'Person', '-m', '--fields=name:string,age:integer?'], { cwd: migrated.dir })
    expect(human.stdout).toMatch(/_create_people_table\.ts \(differs; the database has run it, so --force will not rewrite it: change the table with a new migration\)/)
    expect(human.stdout).toContain('app/models/person.ts (differs; --force overwrites it)')
  })
})
