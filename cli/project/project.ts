/**
 * Finds the app `svc` operates on. A folder is an app when it has
 * `routes/api.ts` or `routes/web.ts`; a package.json may point elsewhere with
 * `"svc": { "app": "examples/blog", "storage": "storage" }` (the repo root does).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
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

/** The project a command works on: `--cwd` (from the command's folder) or that folder, in the command's environment. */
export function projectFor(io: { cwd: string; env: EnvRecord; stderr: { write(text: string): unknown } }, cwd?: string): Project {
  const reported = new Set<string>()
  return {
    ...findProject(resolve(io.cwd, cwd ?? '.'), io.env),
    report(problem) {
      // Said once per command, however many times the config is loaded.
      const line = `error [${problem.code}]: ${problem.message}\n${problem.hint ? `  fix: ${problem.hint}\n` : ''}`
      if (!reported.has(line)) io.stderr.write(line)
      reported.add(line)
    },
  }
}

export function findProject(cwd: string = process.cwd(), env: EnvRecord = process.env): Project {
  const root = resolve(cwd)
  const settings = readSvcSettings(root)
  const appDir = resolve(root, settings.app ?? '.')
  const storageDir = resolve(root, settings.storage ?? join(settings.app ?? '.', 'storage'))
  if (!existsSync(join(appDir, 'routes', 'api.ts')) && !existsSync(join(appDir, 'routes', 'web.ts'))) {
    throw new CliError('E_NO_APP', `No svc app in ${appDir}: neither routes/api.ts nor routes/web.ts exists`, {
      hint: 'run svc in an app folder, pass --cwd <dir>, or set "svc": { "app": "<dir>" } in package.json',
    })
  }
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

function readSvcSettings(root: string): { app?: string; storage?: string } {
  const manifest = join(root, 'package.json')
  if (!existsSync(manifest)) return {}
  try {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { svc?: { app?: unknown; storage?: unknown } }
    const svc = parsed.svc ?? {}
    return {
      ...(typeof svc.app === 'string' ? { app: svc.app } : {}),
      ...(typeof svc.storage === 'string' ? { storage: svc.storage } : {}),
    }
  } catch (error) {
    throw new CliError('E_BAD_PACKAGE_JSON', `Cannot read ${manifest}: ${(error as Error).message}`)
  }
}
