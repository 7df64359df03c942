/**
 * `svc deploy`: the steps of a deployment on this host, written once in
 * `deploy.json` (`svc deploy --init`) and run in order, each with its output,
 * stopping at the first that fails with its exit code.
 *
 * A step is a shell command run in the project folder. One that starts with
 * `svc` runs the project's own svc (`node_modules/.bin/svc`, the one `npm ci`
 * just installed), else the svc running the deploy.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { constants } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import type { DeployJson } from '../contract/operations.ts'
import { CliError } from '../output/cli-error.ts'
import type { CommandIO } from '../output/io.ts'
import type { Progress } from '../output/progress.ts'
import { svcBinPath } from '../server/svc-binary.ts'
import type { Project } from './project.ts'

export interface DeployStep {
  name: string
  run: string
}

export interface DeployConfig {
  steps: DeployStep[]
}

export type StepResult = DeployJson['steps'][number]

export function deployConfigPath(project: Project): string {
  return join(project.root, 'deploy.json')
}

/** The steps the specification names: install, migrate --force, optimize, reload. */
export function defaultDeployConfig(project: Project): DeployConfig {
  const lock = existsSync(join(project.root, 'package-lock.json'))
  return {
    steps: [
      { name: 'install', run: lock ? 'npm ci --omit=dev' : 'npm install --omit=dev' },
      { name: 'migrate', run: 'svc migrate --force' },
      { name: 'optimize', run: 'svc optimize' },
      { name: 'reload', run: 'svc serve:prod --reload' },
    ],
  }
}

export function writeDeployConfig(project: Project, force: boolean): string {
  const file = deployConfigPath(project)
  if (existsSync(file) && !force) throw new CliError('E_EXISTS', `${file} already exists`, { hint: 'edit it, or add --force to write the default steps again' })
  const config = defaultDeployConfig(project)
  const text = JSON.stringify(
    {
      $comment: 'svc deploy runs these steps in order in this folder and stops at the first that fails. A step starting with svc runs the project\'s svc. See docs/deployment.md.',
      ...config,
    },
    null,
    2,
  )
  writeFileSync(file, `${text}\n`)
  return file
}

export function readDeployConfig(project: Project): DeployConfig {
  const file = deployConfigPath(project)
  if (!existsSync(file)) throw new CliError('E_NO_DEPLOY_CONFIG', `${file} does not exist`, { hint: 'svc deploy --init writes one with the usual steps' })
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new CliError('E_BAD_DEPLOY_CONFIG', `${file} is not valid JSON: ${(error as Error).message}`)
  }
  const steps = (parsed as { steps?: unknown }).steps
  const bad = (why: string) => new CliError('E_BAD_DEPLOY_CONFIG', `${file}: ${why}`, { hint: '{ "steps": [{ "name": "install", "run": "npm ci --omit=dev" }, ...] }' })
  if (!Array.isArray(steps) || steps.length === 0) throw bad('"steps" must be a list of { name, run }')
  steps.forEach((step: unknown, index) => {
    const { name, run } = (step ?? {}) as { name?: unknown; run?: unknown }
    if (typeof name !== 'string' || name.trim() === '' || typeof run !== 'string' || run.trim() === '') throw bad(`step ${index + 1} needs a "name" and a "run" command`)
  })
  return { steps: steps as DeployStep[] }
}

/** The command line a step runs: a leading `svc` is the project's svc, else this one. */
export function stepCommand(project: Project, run: string): string {
  const match = /^\s*svc(\s|$)/.exec(run)
  if (match === null) return run
  const own = join(project.root, 'node_modules', '.bin', 'svc')
  const svc = existsSync(own) ? shellQuote(own) : `${shellQuote(process.execPath)} ${shellQuote(svcBinPath())}`
  return `${svc}${run.slice(match[0].length - match[1]!.length)}`
}

/** Runs the steps; stops at the first failure. Each step's output goes through `progress` (stdout, or stderr with --json). */
export async function runDeploy(project: Project, io: CommandIO, config: DeployConfig, progress: Progress, outputToStderr: boolean): Promise<StepResult[]> {
  const results: StepResult[] = config.steps.map((step) => ({ name: step.name, run: step.run, status: 'skipped', exit_code: null, duration_ms: null }))
  for (const [index, step] of config.steps.entries()) {
    progress.step(`${step.name}: ${step.run}`)
    const started = performance.now()
    const exitCode = await runStep(project, io, step, (line) => (outputToStderr ? progress.note(line) : progress.print(line)))
    progress.tick()
    const result = results[index]!
    result.exit_code = exitCode
    result.duration_ms = Math.round(performance.now() - started)
    result.status = exitCode === 0 ? 'ok' : 'failed'
    if (exitCode !== 0) break
  }
  return results
}

function runStep(project: Project, io: CommandIO, step: DeployStep, line: (text: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const bin = join(project.root, 'node_modules', '.bin')
    const env = { ...io.env, PATH: [bin, dirname(process.execPath), io.env.PATH ?? ''].filter(Boolean).join(delimiter) }
    const child = spawn('/bin/sh', ['-c', stepCommand(project, step.run)], { cwd: project.root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    createInterface({ input: child.stdout }).on('line', line)
    createInterface({ input: child.stderr }).on('line', line)
    child.once('error', (error) => {
      line(`cannot start the step: ${error.message}`)
      resolve(127)
    })
    // A step killed by a signal exits as a shell reports it: 128 + the signal's number.
    child.once('close', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)))
  })
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
