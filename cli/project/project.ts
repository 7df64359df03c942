/**
 * Finds the app `svc` operates on. A folder is an app when it has
 * `routes/api.ts` or `routes/web.ts`, or a package.json that depends on svc
 * (an app before its first route: the built-in auth and health routes); a
 * package.json may point elsewhere with
 * `"svc": { "app": "examples/blog", "storage": "storage" }` (the repo root does).
 * Generators (`make:*`) also start an app in a folder that has only a
 * package.json.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type { EnvRecord } from '../../framework/index.ts'
import { CliError } from '../output/cli-error.ts'

export interface Project {
  /** Where `svc` was pointed (`--cwd`): holds `.env`. */
  root: string
  /** The app: routes/, app/, database/. */
  appDir: string
  /** Runtime files: the SQLite database, caches, logs, traces. */
  storageDir: string
  envFile: string
  envExampleFile: string
  /** The environment the command runs with; `.env` is read under it (see loadConfig). */
  env: EnvRecord
  /** Where a problem that does not stop the command is said (a refused config cache): the command's stderr. */
  report?: (problem: CliError) => void
}

export interface FindProjectOptions {
  /**
   * For commands that write the app's files (`make:*`): a folder with a
   * package.json is enough, whatever it depends on, since they create what
   * is missing.
   */
  forGenerators?: boolean
}

/** The project a command works on: `--cwd` (from the command's folder) or that folder, in the command's environment. */
export function projectFor(
  io: { cwd: string; env: EnvRecord; stderr: { write(text: string): unknown } },
  cwd?: string,
  options: FindProjectOptions = {},
): Project {
  const reported = new Set<string>()
  return {
    ...findProject(resolve(io.cwd, cwd ?? '.'), io.env, options),
    report(problem) {
      // Said once per command, however many times the config is loaded.
      const line = `error [${problem.code}]: ${problem.message}\n${problem.hint ? `  fix: ${problem.hint}\n` : ''}`
      if (!reported.has(line)) io.stderr.write(line)
      reported.add(line)
    },
  }
}

export function findProject(cwd: string = process.cwd(), env: EnvRecord = process.env, options: FindProjectOptions = {}): Project {
  const root = resolve(cwd)
  const manifest = readPackageJson(root)
  const settings = svcSettings(manifest)
  const appDir = resolve(root, settings.app ?? '.')
  const storageDir = resolve(root, settings.storage ?? join(settings.app ?? '.', 'storage'))
  const isApp =
    hasRouteFile(appDir) ||
    (settings.app === undefined && manifest !== undefined && (options.forGenerators === true || dependsOnSvc(manifest)))
  if (!isApp) throw noApp(root, appDir, settings.app !== undefined)
  const envExample = [join(root, '.env.example'), join(appDir, '.env.example')].find((path) => existsSync(path))
  return {
    root,
    appDir,
    storageDir,
    envFile: join(root, '.env'),
    envExampleFile: envExample ?? join(appDir, '.env.example'),
    env,
  }
}

function hasRouteFile(appDir: string): boolean {
  return existsSync(join(appDir, 'routes', 'api.ts')) || existsSync(join(appDir, 'routes', 'web.ts'))
}

/** E_NO_APP, saying how to begin (or where the app is, when svc runs inside one). */
function noApp(root: string, appDir: string, configured: boolean): CliError {
  if (configured) {
    return new CliError('E_NO_APP', `No svc app in ${appDir} (named by "svc.app" in ${join(root, 'package.json')}): neither routes/api.ts nor routes/web.ts exists`, {
      hint: 'fix "svc": { "app": "<dir>" } in package.json, or create routes/api.ts there',
    })
  }
  const enclosing = enclosingApp(root)
  if (enclosing !== undefined) {
    return new CliError('E_NO_APP', `No svc app in ${root}: it is inside the app ${enclosing}`, {
      hint: `run svc in ${enclosing}, or pass --cwd ${relative(root, enclosing) || '.'}`,
    })
  }
  return new CliError('E_NO_APP', `No svc app in ${root}: neither routes/api.ts nor routes/web.ts exists`, {
    hint: 'start a project with `svc new <name>` (or the wizard, `svc start`); or create routes/api.ts here (docs/getting-started.md); or pass --cwd <dir> to run in an app elsewhere',
  })
}

/** The nearest folder above `dir` that is an app, if any. */
function enclosingApp(dir: string): string | undefined {
  for (let current = dirname(dir); current !== dirname(current); current = dirname(current)) {
    if (hasRouteFile(current)) return current
    const manifest = readPackageJson(current)
    if (manifest !== undefined) {
      const app = svcSettings(manifest).app
      if (app !== undefined && hasRouteFile(resolve(current, app))) return current
      if (dependsOnSvc(manifest)) return current
      return undefined // a package of its own: svc does not look further up
    }
  }
  return undefined
}

type PackageJson = Record<string, unknown>

function readPackageJson(root: string): PackageJson | undefined {
  const path = join(root, 'package.json')
  if (!existsSync(path)) return undefined
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object')
    return parsed as PackageJson
  } catch (error) {
    throw new CliError('E_BAD_PACKAGE_JSON', `Cannot read ${path}: ${(error as Error).message}`)
  }
}

function svcSettings(manifest: PackageJson | undefined): { app?: string; storage?: string } {
  const svc = (manifest?.svc ?? {}) as { app?: unknown; storage?: unknown }
  return {
    ...(typeof svc.app === 'string' ? { app: svc.app } : {}),
    ...(typeof svc.storage === 'string' ? { storage: svc.storage } : {}),
  }
}

function dependsOnSvc(manifest: PackageJson): boolean {
  return ['dependencies', 'devDependencies'].some((field) => {
    const dependencies = manifest[field]
    return typeof dependencies === 'object' && dependencies !== null && 'svc' in dependencies
  })
}
