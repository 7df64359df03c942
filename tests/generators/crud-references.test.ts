/**
 * A relation between two generated resources, as the "projects and tasks"
 * walkthrough builds it: `make:crud Project`, then `make:crud Task
 * --fields=title:string,project_id:references --seed`. The migration has the
 * foreign key (and its index), the request takes a positive whole id, the
 * factory gives each task a real project (through the project's factory,
 * written when the app lacks it), so `migrate:fresh --seed` works, the
 * generated tests pass (a missing project is a 409) and the project
 * type-checks; the list filters by it (`?project_id=3`). A foreign key to make:auth's users, by its name
 * (`user_id:references`) or naming the table (`author_id:references:users`): the same, with svc's userFactory as the
 * parent's factory, whose users log in. Refused before anything is written: a references column not
 * named `<parent>_id`, a parent no migration creates (users without make:auth), a parent table without a model. A plain
 * `*_id:integer` factory says that its number names no row.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeJson } from '../../cli/contract/index.ts'
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { createTestClient } from '../../framework/testing/index.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { SECRET } from '../auth/helpers.ts'
import { appFiles, generatorApp, projectTests, typecheck } from './helpers.ts'

let app: AppCopy
let tasks: MakeJson
let comments: MakeJson
let reviews: MakeJson

const make = (...args: string[]) => svcJson<MakeJson>(args, { cwd: app.dir })
const migration = (table: string, made = tasks) => app.read('database', 'migrations', made.written.find((path) => path.endsWith(`_create_${table}_table.ts`))!.replace('database/migrations/', ''))

beforeAll(async () => {
  app = generatorApp()
  app.write('.env', `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
  // The parent without --seed: the task's factory and test need the project's factory, so it is written with them.
  await make('make:crud', 'Project')
  tasks = await make('make:crud', 'Task', '--fields=title:string,project_id:references,done:boolean', '--seed')
  // The example's users are make:auth's (no User model): a foreign key by its name, and one naming the table.
  comments = await make('make:crud', 'Comment', '--fields=body:text,user_id:references', '--seed')
  reviews = await make('make:crud', 'Review', '--fields=title:string,author_id:references:users')
}, 180_000)
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

  it('migrate:fresh --seed stores tasks whose projects exist, and comments whose users exist and log in', async () => {
    expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
    const seeded = await svcJson(['migrate:fresh', '--seed'], { cwd: app.dir })
    expect(seeded.seeded).toContain('tasks')
    expect(seeded.seeded_rows).toContainEqual({ seeder: 'comments', table: 'users', added: 10 })
    const loaded = await loadApp(findProject(app.dir))
    try {
      const db = loaded.database!
      expect(await db.first('select count(*) as n from tasks join projects on projects.id = tasks.project_id')).toEqual({ n: 10 })
      expect(await db.first('select count(distinct users.id) as n from comments join users on users.id = comments.user_id')).toEqual({ n: 10 })
      expect((await db.execute('pragma foreign_key_check')).rows).toEqual([])
      // Stored as registration stores them: the password "password", hashed.
      const { email } = (await db.first<{ email: string }>('select users.email from comments join users on users.id = comments.user_id order by comments.id limit 1'))!
      const login = await createTestClient(loaded.app).post('/api/auth/login', { json: { email, password: 'password' } })
      expect(login.status, JSON.stringify(login.body)).toBe(200)
    } finally {
      await loaded.close()
    }
  }, 60_000)

  it('the project type-checks and the generated tests pass (a project_id naming no project, an author_id naming no user are 409s)', async () => {
    const checked = await typecheck(app)
    expect(checked.output).toBe('')
    const result = await projectTests(app, ['tests/tasks.test.ts', 'tests/projects.test.ts', 'tests/comments.test.ts', 'tests/reviews.test.ts'])
    expect(result.output).toMatch(/✓ tests\/tasks\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/projects\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/comments\.test\.ts/)
    expect(result.output).toMatch(/✓ tests\/reviews\.test\.ts/)
    expect(result.code, result.output).toBe(0)
  }, 240_000)
})

describe("a foreign key to make:auth's users (user_id:references, author_id:references:users)", () => {
  it('writes the foreign key, the request, the list filter and the model mark, with svc\'s userFactory as the parent\'s factory', () => {
    expect(migration('comments', comments)).toContain('"user_id" integer not null references "users" ("id"),')
    expect(migration('reviews', reviews)).toContain('"author_id" integer not null references "users" ("id"),')
    expect(migration('reviews', reviews)).toContain(`await db.execute('create index "reviews_author_id_index" on "reviews" ("author_id")')`)
    const request = app.read('app', 'requests', 'review-request.ts')
    expect(request).toContain('author_id: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER)),')
    expect(request).toContain('author_id: v.optional(v.pipe(v.string(), v.digits(), v.transform(Number), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER))),')
    expect(request).toContain('`author_id=` (only those of one user)')
    expect(app.read('app', 'repositories', 'review-repository.ts')).toContain('where: { ...(author_id === undefined ? {} : { author_id }) } })')
    expect(app.read('app', 'models', 'review.ts')).toContain('author_id: number // references users')
    expect(app.read('app', 'models', 'comment.ts')).toContain('user_id: number // references users')
    // No User model was needed: the users factory is svc's, in the app's file (written once, by the first that needed it).
    expect(comments.written).toContain('database/factories/user-factory.ts')
    expect(reviews.written).not.toContain('database/factories/user-factory.ts')
    expect(comments.written).not.toContain('app/models/user.ts')
    expect(app.read('database', 'factories', 'user-factory.ts')).toContain("export { userFactory } from 'svc'")
    expect(app.read('database', 'factories', 'comment-factory.ts')).toContain("import { userFactory } from './user-factory.ts'")
    expect(app.read('database', 'factories', 'comment-factory.ts')).toContain('user_id: userFactory,')
    const test = app.read('tests', 'reviews.test.ts')
    expect(test).toContain("import { userFactory } from '../database/factories/user-factory.ts'")
    expect(test).toContain('valid.author_id = (await userFactory.create(t.db)).id')
    expect(test).toContain("expect(response.body.error).toContain('author_id 999999 names no row of users')")
  })

  it('make:factory reads the table back from the model (the same file), and make:factory User writes svc\'s users factory', async () => {
    const review = await make('make:factory', 'Review')
    expect(review.written).toEqual(['database/factories/review-factory.ts'])
    expect(app.read('database', 'factories', 'review-factory.ts')).toContain('author_id: userFactory,')
    const comment = await make('make:factory', 'Comment')
    expect(comment.skipped).toEqual([{ path: 'database/factories/comment-factory.ts', identical: true }])
    const users = await make('make:factory', 'User')
    expect(users.skipped).toEqual([{ path: 'database/factories/user-factory.ts', identical: true }])
  })

  it('make:seeder User in an app without a users factory writes it with the seeder: db:seed stores ten users', async () => {
    const fresh = generatorApp()
    try {
      fresh.write('.env', `APP_ENV=test\nJWT_SECRET=${SECRET}\n`)
      rmSync(fresh.path('database', 'seeders', 'users.ts'))
      const seeder = await svcJson<MakeJson>(['make:seeder', 'User'], { cwd: fresh.dir })
      expect(seeder.written).toEqual(['database/seeders/users.ts', 'database/factories/user-factory.ts'])
      expect(fresh.read('database', 'seeders', 'users.ts')).toContain('const rows = await userFactory.createMany(db, 10)')
      expect((await runSvc(['migrate'], { cwd: fresh.dir })).exitCode).toBe(0)
      const seeded = await runSvc(['db:seed', '--class=users'], { cwd: fresh.dir })
      expect(seeded.stdout).toContain('Seeded users: +10 users')
    } finally {
      fresh.remove()
    }
  }, 60_000)
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
    expect(orphan.stderr).toContain('or name the table it points at: author_id:references:users')
    const singular = await runSvc(['make:crud', 'Note', '--fields=body:text,author_id:references:user'], { cwd: app.dir })
    expect(singular.exitCode).toBe(1)
    expect(singular.stderr).toContain("fix: the app's table is users: author_id:references:users")
    // A table the app has without a model (the example's posts): the model is what to write.
    const posts = await runSvc(['make:crud', 'Note', '--fields=body:text,post_id:references'], { cwd: app.dir })
    expect(posts.exitCode).toBe(1)
    expect(posts.stderr).toContain('E_NO_MODEL')
    expect(posts.stderr).toContain("the app's migrations create posts: write its model first")
    // A table naming its own rows: its factory would need a parent for each parent.
    const itself = await runSvc(['make:crud', 'Project', '--fields=name:string,project_id:references?'], { cwd: app.dir })
    expect(itself.exitCode).toBe(1)
    expect(itself.stderr).toContain('--fields: project_id references projects, the table itself')
    expect(appFiles(app)).toEqual(before)
  })

  it('a foreign key to users in an app without make:auth: the fix is make:auth', async () => {
    const bare = generatorApp()
    try {
      for (const file of readdirSync(bare.path('database', 'migrations')).filter((name) => name.endsWith('_create_users_table.ts'))) {
        rmSync(bare.path('database', 'migrations', file))
      }
      const before = appFiles(bare)
      const refused = await runSvc(['make:crud', 'Comment', '--fields=body:text,user_id:references'], { cwd: bare.dir })
      expect(refused.exitCode).toBe(1)
      expect(refused.stderr).toContain('--fields: user_id references users, which no migration of the app creates')
      expect(refused.stderr).toContain('fix: svc make:auth first')
      expect(appFiles(bare)).toEqual(before)
    } finally {
      bare.remove()
    }
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

describe('a parent whose plural pluralize cannot take back (Sku: skus)', () => {
  // pluralize.plural('sku') is 'skus', the table make:crud Sku creates, but pluralize.singular('skus') is 'skus':
  // sku_id:references was refused for want of a Skus model (app/models/skus.ts) the app could never have.
  it('make:crud Scan --fields=sku_id:references finds the Sku model and writes its factory', async () => {
    await make('make:crud', 'Sku', '--fields=code:string')
    const scans = await make('make:crud', 'Scan', '--fields=code:string,sku_id:references', '--seed')
    expect(scans.written).toContain('database/factories/sku-factory.ts')
    expect(app.read('database', 'factories', 'scan-factory.ts')).toContain("import { skuFactory } from './sku-factory.ts'")
    expect(app.read('tests', 'scans.test.ts')).toContain("it('lists the scans of one sku (?sku_id=)'")
    const named = await make('make:crud', 'Label', '--fields=text:string,item_id:references:skus')
    expect(named.written).toContain('tests/labels.test.ts')
    expect(app.read('tests', 'labels.test.ts')).toContain("import { skuFactory } from '../database/factories/sku-factory.ts'")
  })

  it("db:seed's fix for a plain sku_id naming no row names skuFactory (it said skusFactory)", async () => {
    await make('make:crud', 'Stock', '--fields=quantity:integer,sku_id:integer', '--seed')
    const name = readdirSync(app.path('database', 'migrations')).find((file) => file.endsWith('_create_stocks_table.ts'))!
    const path = app.path('database', 'migrations', name)
    writeFileSync(path, readFileSync(path, 'utf8').replace('"sku_id" integer not null,', '"sku_id" integer not null references "skus" ("id"),'))
    expect((await runSvc(['migrate:fresh'], { cwd: app.dir })).exitCode).toBe(0)
    const seeded = await runSvc(['db:seed', '--class=stocks'], { cwd: app.dir })
    expect(seeded.exitCode).toBe(1)
    expect(seeded.stderr).toContain("fix: sku_id must name a row of skus: in the factory, give it the parent's factory (sku_id: skuFactory, docs/models.md)")
  }, 60_000)
})
