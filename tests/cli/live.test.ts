/**
 * `svc live` in a temp copy of examples/blog: the supervisor runs in-process,
 * its worker is the real built `svc serve`. A change to a route file restarts
 * it, whether the file is written in place or replaced by a rename (what
 * `sed -i`, formatters and `git checkout` do: Node 20's recursive watcher
 * stops seeing such a file); a syntax error is printed and the previous
 * version keeps serving until the file is fixed; a request in flight during
 * a restart finishes. The watcher itself (what it watches, what it ignores)
 * and the debounce are tested directly.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { pretranspile, useModuleCache } from '../../cli/project/import-file.ts'
import { debounce, isWatchedSource, watchSources } from '../../cli/server/watch.ts'
import { addWebRoutes, assertBuilt, copyExampleApp, slowRoute, type AppCopy } from '../helpers/cli.ts'
import { startSvc, type RunningSvc } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => {
  assertBuilt()
  app = copyExampleApp()
  // A route still working when the restart comes, released by a file.
  addWebRoutes(app, slowRoute('/slow', app.path('storage', 'release')))
})
afterAll(() => app.remove())

/** Waits for a line matching `pattern` printed after `from` characters of the output. */
async function lineAfter(server: RunningSvc, from: number, pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<RegExpMatchArray> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const text = server.output[stream].slice(from)
    const match = text.split('\n').map((line) => pattern.exec(line)).find((found) => found !== null)
    if (match) return match
    if (Date.now() > deadline) throw new Error(`no ${stream} line matching ${pattern}; stdout: ${server.output.stdout}\nstderr: ${server.output.stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const fallbackMessage = async (url: string) => ((await (await fetch(`${url}/api/nothing-here`)).json()) as { error: string }).error

/**
 * The new code answers: "restarted" is printed once the new worker listens,
 * and the old one stops accepting a moment later, so the next few requests
 * may still reach the old one (or find its connection closing).
 */
async function answersWith(url: string, expected: string): Promise<void> {
  await vi.waitFor(
    async () => {
      expect(await fallbackMessage(url).catch((error: Error) => error.message)).toBe(expected)
    },
    { timeout: 30_000, interval: 50 },
  )
}

function setFallback(text: string): string {
  return app.read('routes', 'api.ts').replace(/`No API route for|`[A-Za-z ]+ for/, `\`${text} for`)
}

describe('svc live', () => {
  it('restarts on a change, on a rename-replace, and keeps serving through a syntax error', async () => {
    const server = startSvc(['live', '--port', '0', '--debounce', '50'], { cwd: app.dir })
    try {
      const [, url] = await server.waitFor(/^svc live listening on (http:\/\/127\.0\.0\.1:\d+) /, 60_000)
      expect(await fallbackMessage(url!)).toBe('No API route for GET /api/nothing-here')
      expect(server.output.stdout).toMatch(/^GET \/api\/nothing-here 404 [\d.]+ ms svc_[0-9a-f]{32}$/m)

      // A plain write.
      let mark = server.output.stdout.length
      app.write('routes/api.ts', setFallback('Written'))
      await lineAfter(server, mark, /^change: routes\/api\.ts, restarting\.\.\.$/)
      await lineAfter(server, mark, /^restarted in \d+ ms: svc live listening on /)
      await answersWith(url!, 'Written for GET /api/nothing-here')

      // A rename over the file (sed -i), twice, then a plain write again: each one is seen.
      for (const text of ['Renamed', 'Renamed again']) {
        mark = server.output.stdout.length
        const temporary = app.path('routes', 'sedX4f2a9')
        writeFileSync(temporary, setFallback(text))
        renameSync(temporary, app.path('routes', 'api.ts'))
        await lineAfter(server, mark, /^restarted in \d+ ms/)
        await answersWith(url!, `${text} for GET /api/nothing-here`)
      }
      mark = server.output.stdout.length
      app.write('routes/api.ts', setFallback('Written after renames'))
      await lineAfter(server, mark, /^restarted in \d+ ms/)
      await answersWith(url!, 'Written after renames for GET /api/nothing-here')

      // A syntax error: the error is printed, the previous version keeps answering.
      mark = server.output.stdout.length
      const errorsFrom = server.output.stderr.length
      const good = app.read('routes', 'api.ts')
      app.write('routes/api.ts', `${setFallback('Broken')}\nexport const oops = (\n`)
      await lineAfter(server, mark, /^The new code does not start \(error above\): still serving the previous version/)
      const [error] = await lineAfter(server, errorsFrom, /error \[E_APP_LOAD\]: Cannot load the app/, 'stderr')
      expect(error).toBeDefined()
      expect(server.output.stderr.slice(errorsFrom)).toContain(app.path('routes', 'api.ts'))
      expect(await fallbackMessage(url!)).toBe('Written after renames for GET /api/nothing-here')

      // Fixed: back to the new code.
      mark = server.output.stdout.length
      app.write('routes/api.ts', good.replace('Written after renames', 'Fixed'))
      await lineAfter(server, mark, /^restarted in \d+ ms/)
      await answersWith(url!, 'Fixed for GET /api/nothing-here')
    } finally {
      const { exitCode } = await server.stop()
      expect(exitCode).toBe(0)
    }
  }, 180_000)

  it('a request in flight during a restart finishes (the old worker drains); .env is watched too', async () => {
    const server = startSvc(['live', '--port', '0', '--debounce', '50'], { cwd: app.dir })
    try {
      const [, url] = await server.waitFor(/^svc live listening on (http:\/\/127\.0\.0\.1:\d+) /, 60_000)
      const errorsFrom = server.output.stderr.length
      const slow = fetch(`${url}/slow`)
      await lineAfter(server, errorsFrom, /^slow: started in \d+$/, 'stderr')

      const mark = server.output.stdout.length
      app.write('.env', `${existsSync(app.path('.env')) ? app.read('.env') : ''}\n# touched\n`)
      await lineAfter(server, mark, /^change: \.env, restarting\.\.\.$/)
      await lineAfter(server, mark, /^restarted in \d+ ms/)
      // The old worker, still finishing /slow, no longer takes requests; the new one answers them.
      expect((await fetch(`${url}/health/live`)).status).toBe(200)
      await lineAfter(server, errorsFrom, /^SIGTERM: finishing in-flight requests/, 'stderr')

      writeFileSync(app.path('storage', 'release'), '')
      const response = await slow
      expect(response.status).toBe(200)
      expect((await response.json()).data).toMatchObject({ slow: 'done' })
    } finally {
      await server.stop()
    }
  }, 120_000)
})

describe('the source watcher', () => {
  it('watches the app folders, new ones as they appear; never storage/ or node_modules/', async () => {
    const changes: string[] = []
    mkdirSync(app.path('app', 'node_modules', 'dep'), { recursive: true })
    const watcher = watchSources([{ dir: app.path('app') }, { dir: app.path('storage') }, { dir: app.dir, only: ['.env'] }], (file) => changes.push(file))
    try {
      const dirs = watcher.directories()
      expect(dirs).toContain(app.path('app', 'controllers'))
      expect(dirs).toContain(app.dir)
      expect(dirs.some((dir) => dir.includes('node_modules'))).toBe(false)
      // storage/ is a folder the live command never names; named anyway, it is watched only as asked.
      mkdirSync(app.path('app', 'models'))
      await vi.waitFor(() => expect(watcher.directories()).toContain(app.path('app', 'models')), { timeout: 10_000 })
      writeFileSync(app.path('app', 'models', 'post.ts'), 'export {}\n')
      await vi.waitFor(() => expect(changes).toContain(app.path('app', 'models', 'post.ts')), { timeout: 10_000 })
    } finally {
      watcher.close()
    }
  })

  it('source files count; editor and database files do not', () => {
    for (const name of ['api.ts', 'kernel.mts', 'posts.js', 'config.json', 'schema.sql']) expect(isWatchedSource(name), name).toBe(true)
    for (const name of ['.api.ts.swp', 'api.ts~', 'sedX4f2a9', '4913', 'database.sqlite', 'database.sqlite-wal', '.#api.ts']) expect(isWatchedSource(name), name).toBe(false)
  })

  it('pretranspile writes the changed file into the transpile cache the next worker reads (it never loads the transpiler)', () => {
    const modules = app.path('storage', 'cache', 'modules')
    mkdirSync(modules, { recursive: true })
    try {
      const before = new Set(readdirSync(modules))
      app.write('routes/api.ts', `${app.read('routes', 'api.ts')}\n// edited ${Date.now()}\n`)
      pretranspile([app.path('routes', 'api.ts'), app.path('storage', 'not-typescript.json')], app.path('storage'))
      const added = readdirSync(modules).filter((file) => !before.has(file))
      expect(added).toEqual([expect.stringMatching(/^routes-api\+map\.[0-9a-f]+\.mjs$/)])
      expect(readFileSync(join(modules, added[0]!), 'utf8')).toContain('edited')
    } finally {
      rmSync(modules, { recursive: true, force: true })
      useModuleCache(undefined)
    }
  })

  it('debounces a burst of changes into one restart naming every file', () => {
    vi.useFakeTimers()
    try {
      const runs: string[][] = []
      const restart = debounce(100, (files) => runs.push(files))
      restart.add('a.ts')
      vi.advanceTimersByTime(60)
      restart.add('b.ts')
      restart.add('a.ts')
      vi.advanceTimersByTime(99)
      expect(runs).toEqual([])
      vi.advanceTimersByTime(1)
      expect(runs).toEqual([['a.ts', 'b.ts']])
    } finally {
      vi.useRealTimers()
    }
  })
})
