/**
 * Helpers for the CLI tests: a throw-away copy of an example app in the OS
 * temp dir, and, for the end-to-end set, the real built `svc`
 * (`node dist/cli/bin.js`) spawned in it with `NO_COLOR=1` and a clean
 * environment. Most CLI tests run commands in-process instead (run-svc.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'
import { tempDir } from './app.ts'

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const SVC_BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js')

/** Variables svc reads: never inherited from the developer's shell by a test. */
const CONFIG_VARIABLES = [
  'APP_ENV', 'APP_DEBUG', 'PORT', 'HOST', 'DATABASE_URL', 'DATABASE_AUTH_TOKEN', 'JWT_SECRET', 'JWT_TTL',
  'JWT_REFRESH_TTL', 'JWT_ALGORITHM', 'JWT_ISSUER', 'JWT_AUDIENCE', 'CORS_ORIGINS', 'TRACE_PREFIX', 'BODY_LIMIT',
  'TRUSTED_PROXIES', 'API_KEY', 'SVC_DEBUG', 'FORCE_COLOR',
  'TRACE_MODE', 'TRACE_DATABASE_URL', 'TRACE_DATABASE_AUTH_TOKEN', 'TRACE_SLOW_MS', 'TRACE_SAMPLE_RATE', 'TRACE_RETENTION_DAYS',
  'TRACE_MAX_TRACES', 'TRACE_BUFFER_SIZE', 'TRACE_BATCH_SIZE', 'TRACE_FLUSH_MS', 'TRACE_BODY_LIMIT', 'TRACE_N_PLUS_ONE',
  'TRACE_REDACT_HEADERS', 'TRACE_REDACT_FIELDS', 'TRACE_WRITER', 'EDITOR', 'VISUAL',
  'QUEUE_CONNECTION', 'QUEUE_RETRY_AFTER', 'QUEUE_PREFIX', 'REDIS_URL', 'MAIL_MAILER', 'MAIL_FROM', 'MAIL_QUEUE', 'MAIL_HOST',
  'MAIL_PORT', 'MAIL_USERNAME', 'MAIL_PASSWORD', 'MAIL_ENCRYPTION', 'SCHEDULE_TIMEZONE', 'IDEMPOTENCY_TTL_HOURS',
  'API_DOCS',
]

export function assertBuilt(): void {
  if (!existsSync(SVC_BIN)) throw new Error(`${SVC_BIN} is missing: run \`npm run build\` first (npm test does)`)
}

export interface AppCopy {
  /** The copy's root: routes/, app/, database/, storage/, (.env once created). */
  dir: string
  path(...parts: string[]): string
  read(...parts: string[]): string
  write(relativePath: string, text: string): void
  /** Adds route definitions at the end of `routes/<file>`'s defineRoutes callback (`r.get('/x', ...)` lines). */
  addRoutes(file: 'web.ts' | 'api.ts', routes: string): void
  remove(): void
}

/**
 * Copies `examples/<name>` into a fresh temp folder, without its runtime
 * files, and makes `svc` and the repo's dependencies resolvable from it
 * (`node_modules/svc` links to the repo, whose `exports` point at dist/).
 */
export function copyExampleApp(name = 'blog'): AppCopy {
  const dir = mkdtempSync(join(tmpdir(), `svc-${name}-`))
  const source = join(REPO_ROOT, 'examples', name)
  cpSync(source, dir, {
    recursive: true,
    filter: (path) => !/[\\/](storage[\\/].+|\.env|node_modules)$/.test(path.slice(source.length)),
  })
  mkdirSync(join(dir, 'storage'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `${name}-copy`, private: true, type: 'module' }, null, 2)}\n`)
  linkRepoModules(dir)
  return appCopyAt(dir)
}

/**
 * For a test file's commands: a copy of the example, made before its tests
 * and removed after them (read `app` inside a test), and an empty folder
 * outside any app.
 */
export function exampleAppAndOutside(prefix: string): { readonly app: AppCopy; readonly outside: { path: string; remove(): void } } {
  const outside = tempDir(prefix)
  let app: AppCopy | undefined
  beforeAll(() => {
    app = copyExampleApp()
  })
  afterAll(() => {
    outside.remove()
    app?.remove()
  })
  return {
    get app() {
      if (app === undefined) throw new Error('the example copy is made before the first test: read it inside one')
      return app
    },
    outside,
  }
}

/** File helpers over a folder of a test's own. */
export function appCopyAt(dir: string): AppCopy {
  return {
    dir,
    path: (...parts) => join(dir, ...parts),
    read: (...parts) => readFileSync(join(dir, ...parts), 'utf8'),
    write: (relativePath, text) => {
      mkdirSync(join(dir, relativePath, '..'), { recursive: true })
      writeFileSync(join(dir, relativePath), text)
    },
    addRoutes: (file, routes) => {
      const path = join(dir, 'routes', file)
      writeFileSync(path, readFileSync(path, 'utf8').replace(/\}\)\s*$/, `${routes.trimEnd()}\n})\n`))
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * Makes `svc` and the repo's dependencies resolvable from `dir`
 * (`node_modules/svc` links to the repo, whose `exports` point at dist/), as
 * an install would, without one.
 */
export function linkRepoModules(dir: string): void {
  const modules = join(dir, 'node_modules')
  mkdirSync(modules, { recursive: true })
  symlinkSync(REPO_ROOT, join(modules, 'svc'), 'dir')
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    const target = join(REPO_ROOT, 'node_modules', dependency)
    if (!existsSync(target)) continue
    const link = join(modules, dependency)
    mkdirSync(join(link, '..'), { recursive: true })
    symlinkSync(target, link, 'dir')
  }
}

/** Adds routes (code inside `defineRoutes((r) => { ... })`, using `r`) at the end of the copy's routes/web.ts. */
export function addWebRoutes(app: AppCopy, code: string): void {
  app.write('routes/web.ts', app.read('routes', 'web.ts').replace(/\}\)\s*$/, `${code}\n})\n`))
}

/**
 * A GET route that stays in flight until `releaseFile` exists (a server
 * restart or stop happens meanwhile), printing `slow: started in <pid>` on
 * stderr when it begins; it answers `{ slow: 'done', pid }`.
 */
export function slowRoute(path: string, releaseFile: string): string {
  return `  r.get(${JSON.stringify(path)}, async () => {
    process.stderr.write(\`slow: started in \${process.pid}\\n\`)
    const { existsSync } = await import('node:fs')
    while (!existsSync(${JSON.stringify(releaseFile)})) await new Promise((resolve) => setTimeout(resolve, 20))
    return { slow: 'done', pid: process.pid }
  })`
}

export interface SvcResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface SpawnOptions {
  cwd: string
  env?: Record<string, string>
  timeoutMs?: number
}

/** The environment svc runs with in a test: the process's, without any svc setting, with NO_COLOR=1. */
export function svcEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const name of CONFIG_VARIABLES) delete env[name]
  return { ...env, NO_COLOR: '1', ...extra }
}

/** Starts `svc <args>` and returns the child (for long-running commands such as `serve`). */
export function startSvc(args: string[], options: SpawnOptions): ChildProcessWithoutNullStreams {
  assertBuilt()
  return spawn(process.execPath, [SVC_BIN, ...args], { cwd: options.cwd, env: svcEnv(options.env) })
}

/** Runs `svc <args>` to completion. */
export function spawnSvc(args: string[], options: SpawnOptions): Promise<SvcResult> {
  const child = startSvc(args, options)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const timeoutMs = options.timeoutMs ?? 15_000
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`svc ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, timeoutMs)
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/** Runs `svc <args> --json` and parses stdout, failing with stderr when the command failed. */
export async function svcJson<T = any>(args: string[], options: SpawnOptions): Promise<T> {
  const result = await spawnSvc([...args, '--json'], options)
  if (result.code !== 0) throw new Error(`svc ${args.join(' ')} --json exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}

/** Resolves with the first line of `stream` matching `pattern` (rejects if the stream ends first). */
export function waitForLine(stream: NodeJS.ReadableStream, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(() => finish(new Error(`no line matching ${pattern} within ${timeoutMs} ms; got: ${seen}`)), timeoutMs)
    const onData = (chunk: Buffer | string) => {
      seen += chunk.toString()
      for (const line of seen.split('\n')) {
        const match = pattern.exec(line)
        if (match !== null) return finish(undefined, match)
      }
    }
    const onEnd = () => finish(new Error(`stream ended before a line matched ${pattern}; got: ${seen}`))
    function finish(error: Error | undefined, match?: RegExpMatchArray) {
      clearTimeout(timer)
      stream.off('data', onData)
      stream.off('end', onEnd)
      if (error) reject(error)
      else resolve(match!)
    }
    stream.on('data', onData)
    stream.once('end', onEnd)
  })
}

/**
 * Runs one test file of a project with vitest, as its developer would (the
 * repo's vitest linked into the project's node_modules when it has none).
 */
export async function runVitestIn(dir: string, file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const link = join(dir, 'node_modules', 'vitest')
  if (!existsSync(link)) {
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    symlinkSync(join(REPO_ROOT, 'node_modules', 'vitest'), link, 'dir')
  }
  const child = spawn(process.execPath, [join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir, file], {
    cwd: dir,
    // The runner's own VITEST_* variables would confuse the nested run.
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_ENV')), NO_COLOR: '1' },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  return { code, stdout, stderr }
}
