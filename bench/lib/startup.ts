/**
 * CLI start-up time by repeated spawns from the repository root: hyperfine
 * when it is installed (apt `hyperfine`), else a loop of spawns here.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StartupCommand } from '../scenarios.ts'
import { median } from './stats.ts'

/** The baseline the start-up ratios divide by: the same run's `node -e 0`. */
export const NODE_BASELINE = 'node -e 0'

export interface StartupResult {
  command: StartupCommand
  medianMs: number
  minMs: number
  runs: number
}

export const hasHyperfine = spawnSync('hyperfine', ['--version'], { stdio: 'ignore' }).status === 0

export function measureStartup(commands: StartupCommand[], runs: number, cwd: string): { tool: string; results: StartupResult[] } {
  for (const command of commands) {
    const check = spawnSync(process.execPath, command.args, { cwd, encoding: 'utf8', env: benchEnv() })
    if (check.status !== 0) throw new Error(`\`${command.name}\` failed (exit ${check.status}): ${check.stderr.slice(0, 500)}`)
  }
  return hasHyperfine ? withHyperfine(commands, runs, cwd) : withLoop(commands, runs, cwd)
}

function benchEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1' }
}

function withHyperfine(commands: StartupCommand[], runs: number, cwd: string) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  try {
    const file = join(dir, 'startup.json')
    const quoted = commands.map((command) => [process.execPath, ...command.args].map(shellQuote).join(' '))
    const run = spawnSync(
      'hyperfine',
      ['-N', '--warmup', '3', '--runs', String(runs), '--style', 'none', '--export-json', file, ...quoted],
      { cwd, encoding: 'utf8', env: benchEnv() },
    )
    if (run.status !== 0) throw new Error(`hyperfine failed: ${run.stderr}`)
    const report = JSON.parse(readFileSync(file, 'utf8')) as { results: Array<{ median: number; min: number; times: number[] }> }
    return {
      tool: 'hyperfine',
      results: report.results.map((result, i) => ({
        command: commands[i]!,
        medianMs: result.median * 1000,
        minMs: result.min * 1000,
        runs: result.times.length,
      })),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function withLoop(commands: StartupCommand[], runs: number, cwd: string) {
  const times = commands.map(() => [] as number[])
  // Interleaved like the load rounds, after one unrecorded warm-up each.
  for (let i = -1; i < runs; i++) {
    commands.forEach((command, c) => {
      const started = process.hrtime.bigint()
      spawnSync(process.execPath, command.args, { cwd, stdio: 'ignore', env: benchEnv() })
      if (i >= 0) times[c]!.push(Number(process.hrtime.bigint() - started) / 1e6)
    })
  }
  return {
    tool: `a loop of ${runs} spawns`,
    results: commands.map((command, c) => ({ command, medianMs: median(times[c]!), minMs: Math.min(...times[c]!), runs })),
  }
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
