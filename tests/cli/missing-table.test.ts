/**
 * Why a table is missing, once every migration has run: the migration that
 * creates it (the table was dropped since), the command that writes the
 * migration of one of svc's own tables (a queued listener needs `jobs`, which
 * the app never named), or none. The 500 of a request and `svc why` say it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Database } from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'
import { explainMissingTable } from '../../cli/project/missing-table.ts'
import { findProject, type Project } from '../../cli/project/project.ts'

let dir: string
let db: Database
let project: Project

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-missing-table-'))
  mkdirSync(join(dir, 'routes'))
  writeFileSync(join(dir, 'routes', 'api.ts'), "import { defineRoutes } from 'svc'\nexport default defineRoutes(() => {})\n")
  mkdirSync(join(dir, 'database', 'migrations'), { recursive: true })
  writeFileSync(
    join(dir, 'database', 'migrations', '20260101000000_create_tasks_table.ts'),
    "export async function up(db) {\n  await db.execute(`create table \"tasks\" (\"id\" integer primary key)`)\n}\n",
  )
  project = findProject(dir)
  db = await openDatabase({ storageDir: join(dir, 'storage'), projectDir: dir })
  // Every migration has run; the tables they made are gone (dropped by hand).
  await db.execute('create table migrations (id integer primary key, name text not null, batch integer not null)')
  await db.execute("insert into migrations (name, batch) values ('20260101000000_create_tasks_table', 1)")
})

afterAll(() => {
  db?.close()
  rmSync(dir, { recursive: true, force: true })
})

const explain = (table: string) => explainMissingTable(project, db, 'storage/database.sqlite', table)

it("names the command that writes one of svc's own tables: jobs is make:queue-table's, users make:auth's", async () => {
  expect(await explain('jobs')).toBe(
    "every migration in database/migrations has run on the database storage/database.sqlite, and none creates it: it is one of svc's own tables, whose migration svc make:queue-table writes; run it, then svc migrate",
  )
  expect(await explain('main.failed_jobs')).toContain('svc make:queue-table writes')
  expect(await explain('users')).toContain('svc make:auth writes')
  expect(await explain('idempotency_keys')).toContain('svc make:idempotency-table writes')
  expect(await explain('api_keys')).toContain('svc make:apikey-table writes')
})

it('names the migration that creates a table dropped since, rather than saying none does', async () => {
  expect(await explain('tasks')).toBe(
    'every migration in database/migrations has run on the database storage/database.sqlite, 20260101000000_create_tasks_table among them, which creates it: ' +
      'the table was dropped since (by hand, or by a later migration); add a migration that creates it again, or, on a development database, svc migrate:fresh (which drops every table)',
  )
})

it('a table nothing creates: add a migration', async () => {
  expect(await explain('widgets')).toBe(
    "every migration in database/migrations has run on the database storage/database.sqlite, and none creates it: add one (svc make:migration), or check the table's name",
  )
})
