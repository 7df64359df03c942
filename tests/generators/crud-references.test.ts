/**
 * A relation between two generated resources, as the "projects and tasks"
 * walkthrough builds it: `make:crud Project`, then `make:crud Task
 * --fields=title:string,project_id:references --seed`. The migration has the
 * foreign key (and its index), the request takes a positive whole id, the
 * factory gives each task a real project (through the project's factory,
 * written when the app lacks it), so `migrate:fresh --seed` works, the
 * generated tests pass (a missing project is a 409) and the project
 * type-checks; the list filters by it (`?project_id=3`). Refused before anything is written: a references column not
 * named `<parent>_id`, and a parent no migration creates. A plain
 * `*_id:integer` factory says that its number names no row.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeJson } from '../../cli/contract/index.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { SECRET } from '../auth/helpers.ts'
import { appFiles, generatorApp, projectTests, typecheck } from './helpers.ts'

let app: AppCopy
let tasks: MakeJson

const make = (...args: string[]) => svcJson<MakeJson>(args, { cwd: app.dir })
const migration = (table: string) => app.read('database', 'migrations', tasks.written.find((path) => path.endsWith(`_create_${table}_table.ts`))!.replace('database/migrations/', ''))

beforeAll(async () => {
  app = generatorApp()
  app.write('.env', `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
  // The parent without --seed: the task's factory and test need the project's factory, so it is written with them.
  await make('make:crud', 'Project')
  tasks = await make('make:crud', 'Task', '--fields=title:string,project_id:references,done:boolean', '--seed')
}, 120_000)
afterAll(() => app?.remove())

describe('make:crud Task --fields=title:string,project_id:references', () => {
  it('writes the foreign key, a request taking a positive id, and a factory giving each task a real project', () => {
    expect(tasks.written).toContain('database/factories/project-factory.ts')
    expect(migration('tasks')).toContain('"project_id" integer not null references "projects" ("id"),')
    expect(migration('tasks')).toContain(`await db.execute('create index "tasks_project_id_index" on "tasks" ("project_id")')`)
    expect(app.read('app', 'requests', 'task-request.ts')).toContain('project_id: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER)),')
    expect(app.read('app', 'models', 'task.ts')).toContain('project_id: number // references projects')
    const factory = app.read('database', 'factories', 'task-factory.ts')
    expect(factory).toContain("import { projectFactory } from './project-factory.ts'")
    expect(factory).toContain('project_id: projectFactory,')
    expect(app.read('database', 'factories', 'project-factory.ts')).toContain('export const projectFactory = defineFactory(Project, (n) => ({')
  })

  it('filters the list by the foreign key (?project_id=3), where an unlisted name would have been ignored', () => {
    expect(app.read('app', 'requests', 'task-request.ts')).toContain(
      'project_id: v.optional(v.pipe(v.string(), v.digits(), v.transform(Number), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER))),',
    )
    expect(app.read('app', 'repositories', 'task-repository.ts')).toContain('where: { ...(project_id === undefined ? {} : { project_id }) } })')
    expect(app.read('app', 'controllers', 'tasks.ts')).toContain('const { page, perPage, search, sort, project_id } = c.query')
    // The generated test checks it through the app (run below).
    expect(app.read('tests', 'tasks.test.ts')).toContain("it('lists the tasks of one project (?project_id=)'")
  })

  it('make:factory Task reads the relation back from the model: the same file', async () => {
    const again = await make('make:factory', 'Task')
    expect(again.written).toEqual([])
    expect(again.skipped).toEqual([{ path: 'database/factories/task-factory.ts', identical: true }])
  })

  it('make:crud Project --seed afterwards adds the seeder: the factory written for the tasks is the one it writes (the model marks text and integer columns)', async () => {
    expect(app.read('app', 'models', 'project.ts')).toContain('description: string | null // text')
    const seeded = await make('make:crud', 'Project', '--seed')
    expect(seeded.written).toEqual(['database/seeders/projects.ts'])
    expect(seeded.skipped.every((file) => file.identical)).toBe(true)
  })

  it('migrate:fresh --seed stores tasks whose projects exist', async () => {
    expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
    const seeded = await svcJson(['migrate:fresh', '--seed'], { cwd: app.dir })
    expect(seeded.seeded).toContain('tasks')
    const loaded = await loadApp(findProject(app.dir))
    try {
      const db = loaded.database!
      expect(await db.first('select count(*) as n from tasks join projects on projects.id = tasks.project_id')).toEqual({ n: 10 })
      expect((await db.execute('pragma foreign_key_check')).rows).toEqual([])
    } finally {
      await loaded.close()
    }
  }, 60_000)

  it('the project type-checks and the generated tests pass (a project_id naming no project is a 409)', async () => {
    const checked = await typecheck(app)
    expect(checked.output).toBe('')
    const result = await projectTests(app, ['tests/tasks.test.ts', 'tests/projects.test.ts'])
    expect(result.output).toMatch(/✓ tests\/tasks\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/projects\.test\.ts/)
    expect(result.code, result.output).toBe(0)
  }, 240_000)
})

describe('refused before anything is written', () => {
  it('a references column not named <parent>_id, and a parent no migration creates', async () => {
    const before = appFiles(app)
    const unnamed = await runSvc(['make:crud', 'Comment', '--fields=body:text,task:references'], { cwd: app.dir })
    expect(unnamed.exitCode).toBe(1)
    expect(unnamed.stderr).toContain('E_BAD_FIELDS')
    expect(unnamed.stderr).toContain('fix: task_id:references')
    const orphan = await runSvc(['make:crud', 'Comment', '--fields=body:text,author_id:references'], { cwd: app.dir })
    expect(orphan.exitCode).toBe(1)
    expect(orphan.stderr).toContain('--fields: author_id references authors, which no migration of the app creates')
    expect(orphan.stderr).toContain('svc make:crud Author first')
    // A table the app has without a model (make:auth's users): the model is what to write.
    const users = await runSvc(['make:crud', 'Comment', '--fields=body:text,user_id:references'], { cwd: app.dir })
    expect(users.exitCode).toBe(1)
    expect(users.stderr).toContain('E_NO_MODEL')
    expect(users.stderr).toContain("the app's migrations create users: write its model first")
    // A table naming its own rows: its factory would need a parent for each parent.
    const itself = await runSvc(['make:crud', 'Project', '--fields=name:string,project_id:references?'], { cwd: app.dir })
    expect(itself.exitCode).toBe(1)
    expect(itself.stderr).toContain('--fields: project_id references projects, the table itself')
    expect(appFiles(app)).toEqual(before)
  })
})

describe('a plain *_id:integer', () => {
  it('gets a number in the factory that says it names no row; once a foreign key is added, db:seed fails saying how to fix the factory', async () => {
    await make('make:crud', 'Milestone', '--fields=name:string,project_id:integer', '--seed')
    const factory = 'database/factories/milestone-factory.ts'
    expect(app.read(factory)).toContain(
      "  project_id: n, // any number: with a foreign key to projects, make the column project_id:references (docs/generators.md) or give a row's id",
    )
    // The foreign key added by hand, as models.md describes it; the projects table is empty.
    const name = readdirSync(app.path('database', 'migrations')).find((file) => file.endsWith('_create_milestones_table.ts'))!
    const path = app.path('database', 'migrations', name)
    writeFileSync(path, readFileSync(path, 'utf8').replace('"project_id" integer not null,', '"project_id" integer not null references "projects" ("id"),'))
    expect((await runSvc(['migrate:fresh'], { cwd: app.dir })).exitCode).toBe(0)
    const seeded = await runSvc(['db:seed', '--class=milestones'], { cwd: app.dir })
    expect(seeded.exitCode).toBe(1)
    expect(seeded.stderr).toContain('Seeder milestones failed: Milestone refers to a row that does not exist: project_id 1 names no row of projects')
    expect(seeded.stderr).toContain("fix: project_id must name a row of projects: in the factory, give it the parent's factory (project_id: projectFactory, docs/models.md)")
    // Given it, the seeder works (in this process too: each run imports the factory as it is now).
    writeFileSync(app.path(factory), `import { projectFactory } from './project-factory.ts'\n${app.read(factory).replace(/ {2}project_id: n,.*\n/, '  project_id: projectFactory,\n')}`)
    const fixed = await runSvc(['db:seed', '--class=milestones'], { cwd: app.dir })
    expect(fixed.exitCode, fixed.stderr).toBe(0)
  }, 60_000)
})
