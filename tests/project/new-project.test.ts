/**
 * `svc new <name>` (and `new:project`) and `svc start` with options,
 * in-process: the files a new project gets, its `.env`, what it refuses,
 * the wizard's answers from options, `--yes`, and the error that names the
 * missing options where it cannot ask. The new project is an app svc runs
 * in, and `svc/testing/project` builds it for the project's own tests. (The
 * install of a new project, its npm test, typecheck and start are in
 * new-install.test.ts; the interactive wizard in start-wizard.test.ts.)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeMigrationsJson, NewProjectJson, RouteListJson } from '../../cli/contract/index.ts'
import { defaultSvcSpec } from '../../cli/generators/project/create.ts'
import { renderProject } from '../../cli/generators/project/templates.ts'
import { AUTH_MIGRATION_SOURCES } from '../../cli/project/migration-file.ts'
import { projectTestApp } from 'svc/testing/project'
import { tempDir } from '../helpers/app.ts'
import { linkRepoModules, REPO_ROOT } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

const repo = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}
const sandbox = tempDir('svc-new-')
afterAll(() => sandbox.remove())

const svc = (args: string[], options: { cwd?: string; env?: Record<string, string>; tty?: boolean } = {}) => runSvc(args, { cwd: sandbox.path, ...options })
const json = <T>(args: string[], cwd = sandbox.path) => svcJson<T>(args, { cwd })
const at = (...parts: string[]) => join(sandbox.path, ...parts)
const read = (...parts: string[]) => readFileSync(at(...parts), 'utf8')
const envValue = (text: string, name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1]

describe('svc new <name>', () => {
  let created: NewProjectJson
  beforeAll(async () => {
    created = await json<NewProjectJson>(['new', 'demo'])
  })

  it('writes every file of a standalone project, and says what to run next', async () => {
    expect(created).toMatchObject({ name: 'demo', path: at('demo'), svc: `file:${relative(at('demo'), REPO_ROOT)}`, database_url: '', jwt_algorithm: 'HS256', example: null })
    expect(created.next).toEqual(['cd demo', 'npm install', 'npm start'])
    const expected = [
      'package.json', 'tsconfig.json', 'README.md', '.gitignore', '.env', '.env.example', 'routes/api.ts', 'routes/web.ts',
      'app/controllers/greetings.ts', 'app/middleware/response-time.ts', 'app/kernel.ts',
      ...AUTH_MIGRATION_SOURCES.map((source) => `database/migrations/${source.name}.ts`),
      'database/seeders/admin.ts', 'storage/.gitignore', 'vitest.config.ts', 'tests/example.test.ts',
      // Deno, Bun and Workers (tests/runtimes/new-project.test.ts runs them).
      'app/listeners/index.ts', 'database/migrations/index.ts', 'runtimes/app.ts', 'runtimes/deno.ts', 'runtimes/bun.ts', 'runtimes/workers.ts', 'wrangler.toml', '.dev.vars', '.dev.vars.example',
    ]
    expect(created.files).toEqual(expected)
    for (const file of expected) expect(existsSync(at('demo', file)), file).toBe(true)
    expect(statSync(at('demo')).mode & 0o777).toBe(0o777 & ~process.umask())
    // Nothing else, and no staging folder left beside it.
    expect(readdirSync(sandbox.path).filter((name) => name.startsWith('.'))).toEqual([])

    const human = await svc(['new', 'demo-human'])
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toContain('Created package.json\n')
    expect(human.stdout).toContain('Created tests/example.test.ts\n')
    expect(human.stdout).toContain('demo-human is ready in')
    expect(human.stdout).toMatch(/\n {2}cd demo-human\n {2}npm install\n {2}npm start\n/)
  })

  it('package.json: an ES module depending on svc (this checkout: svc runs from one here), scripts start, dev, test, typecheck; tools in svc\'s own ranges', () => {
    const pkg = JSON.parse(read('demo', 'package.json'))
    expect(pkg).toMatchObject({ name: 'demo', private: true, type: 'module' })
    expect(pkg.scripts).toMatchObject({ start: 'svc serve --migrate', test: 'vitest run', typecheck: 'tsc --noEmit' })
    expect(pkg.scripts.dev).toMatch(/^svc (live|serve --migrate)$/)
    expect(pkg.dependencies).toEqual({ svc: `file:${relative(at('demo'), REPO_ROOT)}`, valibot: repo.dependencies.valibot })
    expect(pkg.devDependencies).toEqual({ '@types/node': repo.devDependencies['@types/node'], typescript: repo.devDependencies.typescript, vitest: repo.devDependencies.vitest })
  })

  it('.env holds a fresh secret and is private (600); .env.example the same settings without it', async () => {
    const env = read('demo', '.env')
    expect(statSync(at('demo', '.env')).mode & 0o777).toBe(0o600)
    expect(envValue(env, 'JWT_SECRET')!.length).toBeGreaterThanOrEqual(32)
    expect(envValue(env, 'JWT_ALGORITHM')).toBe('HS256')
    expect(envValue(env, 'DATABASE_URL')).toBe('')
    const other = read('demo-human', '.env')
    expect(envValue(other, 'JWT_SECRET')).not.toBe(envValue(env, 'JWT_SECRET'))
    const example = read('demo', '.env.example')
    expect(envValue(example, 'JWT_SECRET')).toBe('')
    expect(example).not.toContain(envValue(env, 'JWT_SECRET'))
    expect(statSync(at('demo', '.env.example')).mode & 0o777).toBe(0o644)
  })

  it('.dev.vars (wrangler dev) holds .env\'s JWT_SECRET, mode 600, in development; the runtime scripts are in package.json', () => {
    const devVars = read('demo', '.dev.vars')
    expect(envValue(devVars, 'JWT_SECRET')).toBe(envValue(read('demo', '.env'), 'JWT_SECRET'))
    expect(envValue(devVars, 'APP_ENV')).toBe('development')
    expect(statSync(at('demo', '.dev.vars')).mode & 0o777).toBe(0o600)
    // A clone has no .dev.vars: the committed example says how to make it, without the secret.
    expect(envValue(read('demo', '.dev.vars.example'), 'JWT_SECRET')).toBe('')
    expect(read('demo', '.dev.vars.example')).toContain('Copy to .dev.vars')
    const pkg = JSON.parse(read('demo', 'package.json')) as { scripts: Record<string, string> }
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['start:deno', 'start:bun', 'dev:workers', 'deploy:workers']))
    expect(read('demo', 'wrangler.toml')).toMatch(/^main = "runtimes\/workers\.ts"$/m)
  })

  it('.gitignore keeps .env, the SQLite files and node_modules out; storage/ ignores all but itself; the README has the two commands', () => {
    expect(read('demo', '.gitignore').split('\n')).toEqual(expect.arrayContaining(['.env', 'storage/*.sqlite*', 'node_modules/', '.dev.vars', '.wrangler/']))
    expect(read('demo', 'storage', '.gitignore')).toBe('*\n!.gitignore\n')
    const readme = read('demo', 'README.md')
    expect(readme).toMatch(/^# demo\n/)
    expect(readme).toContain('npm install && npm start')
    expect(readme).toContain('npm test ')
  })

  it('its migrations are the auth tables (make:auth finds them all there)', async () => {
    const again = await json<MakeMigrationsJson>(['make:auth'], at('demo'))
    expect(again.written).toEqual([])
    expect(again.skipped).toHaveLength(AUTH_MIGRATION_SOURCES.length)
    expect(read('demo', 'database', 'migrations', `${AUTH_MIGRATION_SOURCES[0]!.name}.ts`)).toContain('Written by `svc new`')
  })

  it('is an app svc runs in: its routes, migrations and admin seeder', async () => {
    linkRepoModules(at('demo'))
    const { routes } = await json<RouteListJson>(['route:list'], at('demo'))
    const listed = routes.map((route) => `${route.method} ${route.path} ${route.middleware.join(',')}`.trim())
    expect(listed).toEqual(expect.arrayContaining(['GET /api/v1/hello', 'POST /api/v1/greetings', 'GET /api/v1/me/greeting auth', 'GET /', 'POST /api/auth/login throttle:60,1']))
    expect(routes.find((route) => route.path === '/api/v1/greetings')!.schemas.body).toBe(true)

    expect((await svc(['migrate'], { cwd: at('demo') })).exitCode).toBe(0)
    const skipped = await svc(['db:seed', '--class=admin'], { cwd: at('demo') })
    expect(skipped.stderr).toContain('set ADMIN_EMAIL and ADMIN_PASSWORD')
    // The seeder reads the process environment (as `ADMIN_EMAIL=... npx svc db:seed` gives it).
    Object.assign(process.env, { ADMIN_EMAIL: 'boss@example.com', ADMIN_PASSWORD: 'a long passphrase' })
    try {
      const seeded = await svc(['db:seed', '--class=admin'], { cwd: at('demo') })
      expect(seeded.stdout).toBe('Seeded admin: +1 users\n')
    } finally {
      delete process.env.ADMIN_EMAIL
      delete process.env.ADMIN_PASSWORD
    }
    expect((await svc(['user:role', 'boss@example.com'], { cwd: at('demo') })).stdout).toBe('boss@example.com has the role admin.\n')
  })

  it('is built for its own tests by svc/testing/project: a fresh database, tokens by role, nothing left behind', async () => {
    const t = await projectTestApp({ root: new URL(`file://${at('demo')}/`) })
    try {
      expect((await t.client.get('/api/v1/hello')).body).toEqual({ success: true, data: { message: 'Hello from demo!' } })
      expect(Number((await t.db.first<{ n: number }>('select count(*) as n from users'))!.n)).toBe(0)
      expect((await t.client.post('/api/v1/greetings', { json: { name: '' } })).status).toBe(422)
      expect((await t.client.get('/api/v1/me/greeting')).status).toBe(401)
      const token = await t.tokenFor({ name: 'Grace', role: 'admin' })
      expect((await t.client.get('/api/v1/me/greeting', { token })).body.data).toEqual({ message: 'Hello, Grace!', role: 'admin' })
      // Cheap hashing, the same flow: register, then log in with the password.
      const account = { name: 'Lin', email: 'lin@example.test', password: 'correct horse battery', password_confirmation: 'correct horse battery' }
      expect((await t.client.post('/api/auth/register', { json: account })).status).toBe(201)
      expect((await t.client.post('/api/auth/login', { json: { email: account.email, password: account.password } })).status).toBe(200)
      expect(String((await t.db.first<{ password: string }>('select password from users where email = ?', [account.email]))!.password)).toMatch(/^\$argon2id\$v=19\$m=64,t=1,/)
    } finally {
      await t.close()
    }
    // The development database was not the test's: it has only the admin seeded above.
    const dev = createClient({ url: `file:${at('demo', 'storage', 'database.sqlite')}` })
    try {
      expect((await dev.execute('select email from users')).rows.map((row) => row.email)).toEqual(['boss@example.com'])
    } finally {
      dev.close()
    }
  })

  it('svc/testing/project needs no .env (a fresh checkout): a throw-away secret, or RS256 key pair; seeds by name', async () => {
    await json<NewProjectJson>(['new', 'clone', '--jwt=RS256'])
    linkRepoModules(at('clone'))
    // An RS256 project whose storage/keys/ did not come with the checkout: a throw-away pair.
    rmSync(at('clone', 'storage', 'keys'), { recursive: true })
    const rs256 = await projectTestApp({ root: at('clone'), seed: ['admin'] })
    try {
      expect(rs256.config.jwtAlgorithm).toBe('RS256')
      expect((await rs256.client.get('/api/auth/me', { token: await rs256.tokenFor() })).status).toBe(200)
    } finally {
      await rs256.close()
    }
    // No .env at all (HS256 by default), or one whose secret is empty: a throw-away secret.
    for (const env of [undefined, 'JWT_SECRET=\n']) {
      rmSync(at('clone', '.env'), { force: true })
      if (env !== undefined) writeFileSync(at('clone', '.env'), env)
      const t = await projectTestApp({ root: at('clone') })
      try {
        expect(t.config.jwtAlgorithm).toBe('HS256')
        expect((await t.client.get('/api/auth/me', { token: await t.tokenFor() })).status).toBe(200)
      } finally {
        await t.close()
      }
    }
  })

  it('new:project is the same command', async () => {
    const twin = await json<NewProjectJson>(['new:project', 'twin'])
    expect(twin.files).toEqual(created.files)
    expect(read('twin', 'routes', 'api.ts')).toBe(read('demo', 'routes', 'api.ts'))
  })

  it('--jwt=RS256 writes the key pair into storage/keys/ and sets JWT_ALGORITHM; --database sets DATABASE_URL', async () => {
    const project = await json<NewProjectJson>(['new', 'keyed', '--jwt=RS256', '--database=file:data/app.sqlite'])
    expect(project).toMatchObject({ jwt_algorithm: 'RS256', database_url: 'file:data/app.sqlite' })
    expect(readdirSync(at('keyed', 'storage', 'keys')).sort()).toEqual(['jwt-private.pem', 'jwt-public.pem'])
    // A Worker reads no .env nor storage/: wrangler.toml names the algorithm, .dev.vars (wrangler dev) holds the same pair.
    expect(read('keyed', 'wrangler.toml')).toMatch(/^JWT_ALGORITHM = "RS256"$/m)
    expect(read('keyed', '.dev.vars')).toContain(`JWT_PRIVATE_KEY="${read('keyed', 'storage', 'keys', 'jwt-private.pem').trim()}"`)
    expect(statSync(at('keyed', 'storage', 'keys', 'jwt-private.pem')).mode & 0o077).toBe(0)
    const env = read('keyed', '.env')
    expect(envValue(env, 'JWT_ALGORITHM')).toBe('RS256')
    expect(envValue(env, 'DATABASE_URL')).toBe('file:data/app.sqlite')
  })

  it('--svc: a range as given; a tarball or folder path made relative to the new project; by default this checkout', async () => {
    mkdirSync(at('dist'))
    writeFileSync(at('dist', 'svc-9.9.9.tgz'), '')
    const byPath = await json<NewProjectJson>(['new', 'apps/tarball', '--svc=file:dist/svc-9.9.9.tgz'])
    expect(byPath.svc).toBe('file:../../dist/svc-9.9.9.tgz')
    expect(JSON.parse(read('apps', 'tarball', 'package.json')).dependencies.svc).toBe('file:../../dist/svc-9.9.9.tgz')
    expect((await json<NewProjectJson>(['new', 'ranged', '--svc=~0.1.2'])).svc).toBe('~0.1.2')
    // Without --svc, an svc run from a checkout (as here) is depended on as that folder: the registry's `svc` is another package.
    expect((await json<NewProjectJson>(['new', 'plain'])).svc).toBe(`file:${relative(at('plain'), REPO_ROOT)}`)
    // An installed svc (under node_modules): a caret range on its version.
    expect(defaultSvcSpec('/srv/app/node_modules/svc/', '0.4.2')).toBe('^0.4.2')
    expect(defaultSvcSpec('/home/me/svc/', '0.4.2')).toBe('file:/home/me/svc/')
    const missing = await svc(['new', 'lost', '--svc=file:./nowhere.tgz'])
    expect(missing.stderr).toContain('error [E_BAD_OPTION]: --svc=file:./nowhere.tgz')
    expect(existsSync(at('lost'))).toBe(false)
  })

  it('an empty folder (or one with only .git) is filled; a folder with files is refused untouched', async () => {
    mkdirSync(at('empty', '.git'), { recursive: true })
    expect((await json<NewProjectJson>(['new', '.'], at('empty'))).name).toBe('empty')
    expect(existsSync(at('empty', 'routes', 'api.ts'))).toBe(true)
    const before = read('demo', 'routes', 'api.ts')
    const taken = await svc(['new', 'demo'])
    expect(taken.exitCode).toBe(1)
    expect(taken.stderr).toContain(`error [E_EXISTS]: ${at('demo')} already exists and is not empty`)
    expect(read('demo', 'routes', 'api.ts')).toBe(before)
  })

  it('refuses a name npm would refuse, suggesting one, and a database URL it cannot use; nothing is created', async () => {
    const named = await svc(['new', 'My Api'])
    expect(named.exitCode).toBe(1)
    expect(named.stderr).toContain('error [E_BAD_NAME]: "My Api" cannot be a package name')
    expect(named.stderr).toContain('fix: svc new my-api')
    const url = await svc(['new', 'pg', '--database=postgres://db/app'])
    expect(url.stderr).toContain('error [E_BAD_OPTION]: --database=postgres://db/app: a database URL starts with file:, libsql://')
    const jwt = await svc(['new', 'weak', '--jwt=none'])
    expect(jwt.stderr).toContain('E_BAD_OPTION')
    for (const name of ['My Api', 'pg', 'weak']) expect(existsSync(at(name))).toBe(false)
  })

  it('--example=Product adds a resource with make:crud (routes registered, sample rows seeded); --json stays one document', async () => {
    const result = await svc(['new', 'shop', '--example=Product', '--json'])
    expect(result.exitCode).toBe(0)
    const shop = JSON.parse(result.stdout) as NewProjectJson
    expect(shop).toMatchObject({ name: 'shop', example: 'Product', edits: [{ path: 'routes/api.ts', status: 'changed' }] })
    expect(shop.files).toEqual(expect.arrayContaining(['package.json', 'app/models/product.ts', 'database/seeders/products.ts']))
    expect(shop.files.find((file) => /create_products_table/.test(file))).toBeDefined()
    expect(shop.next).toEqual(['cd shop', 'npm install', 'npx svc migrate', 'npx svc db:seed', 'npm start'])
    expect(read('shop', 'routes', 'api.ts')).toContain("'/products'")

    linkRepoModules(at('shop'))
    const { routes } = await json<RouteListJson>(['route:list'], at('shop'))
    expect(routes.filter((route) => route.path.startsWith('/api/v1/products')).map((route) => route.method).sort()).toEqual(['DELETE', 'GET', 'GET', 'POST', 'PUT'])
    expect((await svc(['migrate'], { cwd: at('shop') })).exitCode).toBe(0)
    expect((await svc(['db:seed', '--class=products'], { cwd: at('shop') })).stdout).toMatch(/^Seeded products: \+\d+ products\n$/)

    const bad = await svc(['new', 'shop2', '--example=Object'])
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr).toContain('error [E_BAD_OPTION]: --example=Object: "Object" would declare Object')
    expect(existsSync(at('shop2'))).toBe(false)
  })

  // A name make:crud refuses for what the new project holds (make:auth's users table; the scaffold's own POST /greetings)
  // used to be refused after the project was written: exit 1, and a project without its example left in place.
  it('--example that make:crud refuses in the new project (User, Greeting): refused, nothing created', async () => {
    for (const [name, said] of [['User', "This would create users, one of svc's own tables"], ['Greeting', 'routes/api.ts already has']] as const) {
      const refused = await svc(['new', `shop-${name.toLowerCase()}`, `--example=${name}`])
      expect(refused.exitCode, name).toBe(1)
      expect(refused.stderr).toContain(said)
      expect(existsSync(at(`shop-${name.toLowerCase()}`)), name).toBe(false)
    }
    expect(readdirSync(sandbox.path).filter((entry) => entry.startsWith('.shop-'))).toEqual([])
    // User is known from its name alone: refused with the other bad names (the wizard asks again at once).
    expect((await svc(['new', 'shop-user', '--example=User'])).stderr).toContain("error [E_BAD_OPTION]: --example=User: This would create users, one of svc's own tables")
  })
})

describe('svc start, scripted', () => {
  it('--name demo --yes: no questions, the defaults for the rest (a terminal or not)', async () => {
    const result = await svc(['start', '--name', 'wizard-yes', '--yes', '--example=none'], { tty: true })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('wizard-yes is ready in')
    expect(envValue(read('wizard-yes', '.env'), 'JWT_ALGORITHM')).toBe('HS256')
    const json = await svc(['start', '--name', 'wizard-json', '-y', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'wizard-json', database_url: '', jwt_algorithm: 'HS256', example: 'Post' })
    expect(existsSync(at('wizard-json', 'app', 'models', 'post.ts'))).toBe(true)
  })

  it('without a terminal and without --yes: names the missing options instead of waiting, and creates nothing', async () => {
    const { exitCode, stdout, stderr } = await svc(['start'])
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('error [E_NEEDS_ANSWERS]: svc start cannot ask its questions (stdin is not a terminal). Missing: --name=<name> --database=<url>')
    expect(stderr).toContain('--jwt=HS256|RS256')
    expect(stderr).toContain('--example=<Name>|none')
    expect(stderr).toContain('fix: answer with those options, or add --yes')
    const some = await svc(['start', '--name=half', '--jwt=RS256'])
    expect(some.stderr).toContain('Missing: --database=<url> (empty: the embedded file) --example=<Name>|none\n')
    expect(existsSync(at('my-api'))).toBe(false)
    expect(existsSync(at('half'))).toBe(false)
  })

  it('every question answered by an option: no terminal and no --yes needed', async () => {
    const result = await json<NewProjectJson>(['start', '--name=answered', '--database=', '--jwt=RS256', '--example=none'])
    expect(result).toMatchObject({ name: 'answered', database_url: '', jwt_algorithm: 'RS256', example: null })
    expect(existsSync(at('answered', 'storage', 'keys', 'jwt-private.pem'))).toBe(true)
  })

  it('--json never prompts, even on a terminal', async () => {
    const { exitCode, stderr } = await svc(['start', '--json'], { tty: true })
    expect(exitCode).toBe(1)
    expect(stderr).toContain('cannot ask its questions (--json prints one document, no prompts)')
  })

  it('bad answers given as options fail before any question: a taken folder, a bad name, a bad URL', async () => {
    expect((await svc(['start', '--name=demo'], { tty: true })).stderr).toContain('E_EXISTS')
    expect((await svc(['start', '--name=Demo App', '--yes'])).stderr).toContain('E_BAD_NAME')
    expect((await svc(['start', '--name=ok', '--database=mysql://x', '--yes'])).stderr).toContain('E_BAD_OPTION')
    expect((await svc(['start', '--yes', '--cwd', at('demo')])).exitCode).toBe(0)
    // The default name is taken now: --yes says so instead of overwriting.
    expect((await svc(['start', '--yes', '--cwd', at('demo')])).stderr).toContain(`error [E_EXISTS]: ${at('demo', 'my-api')} already exists`)
  })

  it('its files are the same templates as svc new', () => {
    const fresh = renderProject({ name: 'x', svcSpec: '^1.0.0', versions: { valibot: '1', vitest: '1', typescript: '1', typesNode: '1' }, databaseUrl: '', jwtAlgorithm: 'HS256', secret: 's', devCommand: 'svc serve --migrate' })
    expect(readdirSync(at('answered'), { recursive: true, encoding: 'utf8' }).filter((file) => fresh.some((f) => f.path === file)).length).toBe(fresh.length)
  })
})
