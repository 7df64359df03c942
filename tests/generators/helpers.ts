/**
 * A temp copy of the example app that generators write into, able to run
 * what they wrote: `tsc --noEmit` with the settings a project uses, and its
 * own tests with vitest (both spawned: they run the project's code, as a
 * user's `npm test` would).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { PROJECT_TSCONFIG } from '../../cli/generators/project/templates.ts'
import { copyExampleApp, REPO_ROOT, svcEnv, type AppCopy } from '../helpers/cli.ts'

const run = promisify(execFile)

export function generatorApp(): AppCopy {
  const app = copyExampleApp()
  for (const dependency of ['vitest', 'typescript', '@types']) {
    const link = join(app.dir, 'node_modules', dependency)
    if (!existsSync(link)) symlinkSync(join(REPO_ROOT, 'node_modules', dependency), link, 'dir')
  }
  writeFileSync(join(app.dir, 'tsconfig.json'), `${JSON.stringify(PROJECT_TSCONFIG, null, 2)}\n`)
  return app
}

export interface SpawnResult {
  code: number
  output: string
}

async function spawnNode(args: string[], cwd: string, timeout: number): Promise<SpawnResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, env: svcEnv({ CI: 'true' }), timeout, maxBuffer: 16 * 1024 * 1024 })
    return { code: 0, output: `${stdout}${stderr}` }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string }
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}${failed.message}` }
  }
}

/** `tsc --noEmit -p <app>`: exit 0 and no output when everything type-checks. */
export function typecheck(app: AppCopy): Promise<SpawnResult> {
  return spawnNode([join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', app.dir], app.dir, 180_000)
}

/** The project's tests (or some of them), with vitest, in the project's folder. */
export function projectTests(app: AppCopy, files: string[] = []): Promise<SpawnResult> {
  return spawnNode([join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', app.dir, ...files], app.dir, 180_000)
}

/** Every file of the app (but storage and node_modules) with its text: to compare before and after. */
export function appFiles(app: AppCopy): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (name === 'node_modules' || name === 'storage') continue
      if (statSync(path).isDirectory()) walk(path)
      else files.set(relative(app.dir, path), readFileSync(path, 'utf8'))
    }
  }
  walk(app.dir)
  return files
}

export function writeAppFile(app: AppCopy, path: string, text: string): void {
  mkdirSync(join(app.dir, path, '..'), { recursive: true })
  writeFileSync(join(app.dir, path), text)
}
