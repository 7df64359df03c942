/**
 * `svc tinker`: piped input in-process (every line evaluated in order, awaits
 * included; the app, its database, config, a client and the models in
 * scope), and the real binary in a terminal (tmux): evaluation, history kept
 * in storage/tinker_history with mode 600 and recalled by the next session.
 * Last, piped input in a project made by `svc new`.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rewriteImports, TINKER_IMPORT } from '../../cli/tinker/imports.ts'
import { tempDir } from '../helpers/app.ts'
import { assertBuilt, copyExampleApp, linkRepoModules, SVC_BIN, type AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { openTerminal, type Terminal } from '../helpers/terminal.ts'

const SECRET = 'tinker-test-secret-0123456789abcdef0123456789'

let app: AppCopy
beforeAll(async () => {
  app = copyExampleApp()
  writeFileSync(app.path('.env'), `APP_ENV=development\nJWT_SECRET=${SECRET}\n`)
  app.write('app/models/post.ts', "export const Post = { table: 'posts' }\n")
  app.write('app/models/post-comment.ts', "export default { kind: 'comment model' }\n")
  expect((await runSvc(['migrate'], { cwd: app.dir })).exitCode).toBe(0)
})
afterAll(() => app?.remove())

describe('svc tinker', () => {
  it('evaluates piped lines one after another, awaits included, with the app in scope', async () => {
    const input = [
      // Published, so that the public list below shows it (a draft is its author's alone).
      "await db.execute(\"insert into posts (title, slug, published_at) values ('Hello', 'hello', '2026-01-01T00:00:00.000Z')\")",
      'const slow = await new Promise((resolve) => setTimeout(() => resolve(41), 50))',
      'slow + 1',
      "(await db.first('select count(*) as n from posts')).n",
      "(await client.get('/api/v1/posts')).body.data[0].title",
      'config.env',
      "routes().includes('GET /api/v1/posts')",
      'function twice(x) {',
      '  return 2 * x',
      '}',
      'twice(Post.table.length)',
      'PostComment.kind',
      'thisIsNotDefined',
    ].join('\n')
    const result = await runSvc(['tinker'], { cwd: app.dir, stdin: `${input}\n` })
    expect(result.exitCode, result.stderr).toBe(0)
    const values = result.stdout
      .split('svc> ')
      .map((chunk) => chunk.trim())
      .filter((chunk) => chunk !== '' && !chunk.startsWith('...'))
    expect(values).toEqual(expect.arrayContaining(['42', '1', "'Hello'", "'development'", 'true', '10']))
    expect(values.indexOf('42')).toBeLessThan(values.indexOf('1')) // in order: the slow line finished first
    expect(result.stdout).toContain("'comment model'")
    expect(result.stdout).toContain('Uncaught ReferenceError: thisIsNotDefined is not defined')
    // The banner (stderr) names what is in scope, the models included.
    expect(result.stderr).toMatch(/^ {2}db +the app's database/m)
    expect(result.stderr).toMatch(/^ {2}Post +model \(app\/models\)/m)
    expect(result.stderr).toMatch(/^ {2}PostComment +model \(app\/models\)/m)
    // Piped: no history written.
    expect(existsSync(app.path('storage', 'tinker_history'))).toBe(false)
  })
})

describe('svc tinker: import() of the app\'s files', () => {
  it('loads a .ts file with jiti, relative to the app, as the same module the scope has; a package name through Node', async () => {
    const input = [
      "const models = await import('./app/models/post.ts')",
      'models.Post === Post',
      "const file = './app/models/' + 'post-comment.ts'",
      '(await import(file)).default.kind',
      "typeof (await import('node:path')).join",
      "'import(\\'./kept-as-text.ts\\')'",
    ].join('\n')
    const result = await runSvc(['tinker'], { cwd: app.dir, stdin: `${input}\n` })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).not.toContain('ERR_UNKNOWN_FILE_EXTENSION')
    expect(result.stdout).not.toContain('Uncaught')
    const values = result.stdout.split('svc> ').map((chunk) => chunk.trim()).filter((chunk) => chunk !== '')
    expect(values).toEqual(["true", "'comment model'", "'function'", "\"import('./kept-as-text.ts')\""])
  })

  it('rewrites import() calls, not package names, member calls or text', () => {
    expect(rewriteImports("await import('./app/models/post.ts')")).toBe(`await ${TINKER_IMPORT}('./app/models/post.ts')`)
    expect(rewriteImports('await import(name)')).toBe(`await ${TINKER_IMPORT}(name)`)
    expect(rewriteImports("await import('valibot'); jiti.import('./x.ts'); 'import(\"./y.ts\")'")).toBe("await import('valibot'); jiti.import('./x.ts'); 'import(\"./y.ts\")'")
    expect(rewriteImports('function f() {')).toBe('function f() {') // a statement still being typed
    expect(rewriteImports("var x = 010; with (Math) await import('./a.ts')")).toBe(`var x = 010; with (Math) await ${TINKER_IMPORT}('./a.ts')`) // the REPL's sloppy mode
  })
})

describe('svc tinker in a terminal', () => {
  let terminal: Terminal | undefined
  afterAll(() => terminal?.close())

  async function session(): Promise<Terminal> {
    assertBuilt()
    const opened = openTerminal(['sh', '-c', `cd '${app.dir}' && exec '${process.execPath}' '${SVC_BIN}' tinker`], { NO_COLOR: '1' })
    await opened.waitFor((screen) => screen.split('\n').at(-1)!.startsWith('svc>'), 'the svc> prompt', 60_000)
    return opened
  }

  it('evaluates what is typed, keeps the history (mode 600) and recalls it in the next session', { timeout: 180_000 }, async () => {
    terminal = await session()
    terminal.type("(await db.first('select count(*) as n from posts')).n * 100")
    terminal.keys('Enter')
    await terminal.waitFor((screen) => screen.split('\n').some((line) => line.trim() === '100'), 'the answer 100')
    terminal.type('.exit')
    terminal.keys('Enter')
    const history = app.path('storage', 'tinker_history')
    // Both lines written (node rewrites the whole file per line: closing the terminal earlier could cut it).
    await terminal.waitFor(() => existsSync(history) && /^\.exit$/m.test(readFileSync(history, 'utf8')) && readFileSync(history, 'utf8').includes('* 100'), 'the history file')
    expect(statSync(history).mode & 0o777).toBe(0o600)
    terminal.close()

    terminal = await session()
    // Newest first: .exit, then the query.
    terminal.keys('Up', 'Up')
    await terminal.waitFor((screen) => /svc> \(await db\.first\('select count\(\*\) as n from posts'\)\)\.n \* 100/.test(screen), 'the recalled line')
  })
})

describe('svc tinker in a project made by svc new', () => {
  it('has the project, its database and its routes in scope', async () => {
    const work = tempDir('svc-new-tinker-')
    try {
      expect((await runSvc(['new', 'demo'], { cwd: work.path })).exitCode).toBe(0)
      const project = join(work.path, 'demo')
      linkRepoModules(project)
      expect((await runSvc(['migrate'], { cwd: project })).exitCode).toBe(0)
      const input = ["(await client.get('/api/v1/hello')).body.data.message", "(await db.first('select count(*) as n from users')).n", "routes().includes('GET /api/v1/hello')"].join('\n')
      const result = await runSvc(['tinker'], { cwd: project, stdin: `${input}\n` })
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stdout).toContain("'Hello from demo!'")
      expect(result.stdout).toMatch(/svc> 0\n/)
      expect(result.stdout).toMatch(/svc> true\n/)
    } finally {
      work.remove()
    }
  })
})
