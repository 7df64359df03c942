/**
 * `npm run bench:ab -- <git-ref> --only <scenario>[,...]`: the same
 * scenarios served by two builds, the working tree's and a git ref's, in
 * one run. Rounds alternate between the two (and which goes first), so what
 * the machine does meanwhile falls on both; the answer is the median of the
 * per-round ratios. It is how a change to a hot path is judged on a shared
 * machine, where two separate `npm run bench` runs can differ by more than
 * the change (docs/benchmarks.md, "Comparing two builds").
 *
 *   node --import jiti/register bench/ab.ts HEAD~1 --only trace/json-on [--rounds 20] [--duration 2]
 *
 * A window disturbed by another guest or process is measured again, as in
 * `npm run bench` (lib/disturbance.ts).
 *
 * The ref is built from `git archive` in a temporary folder with this
 * checkout's node_modules; each side runs its own bench servers.
 */
import { execFileSync, execSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { numberFlag, parseFlags, withFlags } from './lib/flags.ts'
import { DISTURBANCE_OPTIONS, DISTURBANCE_USAGE, describeWindows, disturbanceLimits, newWindowCounts, type WatchedCpus } from './lib/disturbance.ts'
import { measureServer, measureUndisturbed, type Sample } from './lib/load.ts'
import type { RunningBenchServer } from './lib/processes.ts'
import { pinProcess } from './lib/processes.ts'
import { median } from './lib/stats.ts'
import { scenarios, type Scenario, type ServerSpec } from './scenarios.ts'
import { loadOptions } from './lib/load-options.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

const USAGE = `npm run bench:ab -- <git-ref> --only <scenario>[,...] [--rounds n] [--duration s] [--connections n]
  ${DISTURBANCE_USAGE}
Scenarios: ${scenarios.map((s) => s.name).join(', ')}`

const { flags, positionals, rounds, duration, connections, limits } = withFlags(USAGE, () => {
  const { values, positionals } = parseFlags({
    allowPositionals: true,
    options: {
      only: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '20' },
      duration: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
      ...DISTURBANCE_OPTIONS,
      help: { type: 'boolean', short: 'h' },
    },
  })
  return {
    flags: values,
    positionals,
    rounds: Math.max(1, Math.round(numberFlag('rounds', values.rounds, 'positive'))),
    duration: numberFlag('duration', values.duration, 'positive'),
    connections: Math.max(1, Math.round(numberFlag('connections', values.connections, 'positive'))),
    limits: disturbanceLimits(values),
  }
})

const ref = positionals[0]
const names = (flags.only ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean)
if (flags.help || ref === undefined || names.length === 0) {
  console.log(USAGE)
  process.exit(flags.help ? 0 : 2)
}
const selected = names.map((name) => scenarios.find((s) => s.name === name))
if (selected.includes(undefined)) {
  console.error(`Unknown scenario in ${names.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`)
  process.exit(2)
}
const log = (line: string) => process.stderr.write(`${line}\n`)

type StartServer = (spec: ServerSpec, cpu: number | undefined) => Promise<RunningBenchServer>

/** The ref's tree, built, in a temporary folder. */
function buildRef(gitRef: string): string {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${gitRef}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim()
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ab-'))
  execSync(`git archive ${commit} | tar -x -C ${JSON.stringify(dir)}`, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' })
  return dir
}

async function serverStarter(tree: string): Promise<StartServer> {
  const module = (await import(pathToFileURL(join(tree, 'bench/lib/processes.ts')).href)) as { startServer: StartServer }
  return module.startServer
}

interface Side {
  label: string
  server: RunningBenchServer
  samples: Sample[]
}

/** Set once this process is pinned: only pinned CPUs can be watched. */
let watched: WatchedCpus | undefined
const windows = newWindowCounts()

function measure(side: Side, scenario: Scenario, seconds: number): Promise<Sample> {
  return measureServer(side.server, scenario, loadOptions(scenario, connections, seconds), watched)
}

function measureRound(side: Side, scenario: Scenario): Promise<Sample> {
  return measureUndisturbed(() => measure(side, scenario, duration), watched === undefined ? undefined : limits, windows, log)
}

async function main(): Promise<void> {
  const serverCpu = availableParallelism() >= 2 ? 1 : undefined
  if (serverCpu !== undefined && pinProcess(process.pid, 0)) watched = { server: serverCpu, load: 0 }
  log(`Building ${ref}...`)
  const refTree = buildRef(ref!)
  const running: RunningBenchServer[] = []
  try {
    const startRef = await serverStarter(refTree)
    const startCurrent = await serverStarter(ROOT)
    for (const scenario of selected as Scenario[]) {
      const sides: Side[] = [
        { label: ref!, server: await startRef(scenario.server, serverCpu), samples: [] },
        { label: 'working tree', server: await startCurrent(scenario.server, serverCpu), samples: [] },
      ]
      running.push(...sides.map((side) => side.server))
      for (const side of sides) await measure(side, scenario, 1)
      for (let round = 0; round < rounds; round++) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) side.samples.push(await measureRound(side, scenario))
      }
      report(scenario, sides[0]!, sides[1]!)
      await Promise.all(sides.map((side) => side.server.stop()))
    }
    if (watched !== undefined) console.log(`\n${describeWindows(windows, limits)}`)
  } finally {
    await Promise.all(running.map((server) => server.stop()))
    rmSync(refTree, { recursive: true, force: true })
  }
}

function report(scenario: Scenario, base: Side, subject: Side): void {
  const rps = (side: Side) => side.samples.map((s) => s.rps)
  const cpu = (side: Side) => side.samples.map((s) => s.cpuPerRequest!)
  const p99 = (side: Side) => side.samples.map((s) => s.p99)
  const paired = (a: number[], b: number[]) => median(b.map((value, i) => value / a[i]!))
  console.log(`\n${scenario.name} (${scenario.method ?? 'GET'} ${scenario.path}), ${rounds} rounds x ${duration} s, ${loadOptions(scenario, connections, duration).connections} connections`)
  console.log(`| build | req/s (median) | CPU us/req (median) | p99 ms (median) |`)
  console.log(`| --- | ---: | ---: | ---: |`)
  for (const side of [base, subject]) console.log(`| ${side.label} | ${Math.round(median(rps(side)))} | ${median(cpu(side)).toFixed(1)} | ${median(p99(side)).toFixed(2)} |`)
  console.log(
    `working tree vs ${base.label}: req/s ${paired(rps(base), rps(subject)).toFixed(3)}x, CPU/req ${paired(cpu(base), cpu(subject)).toFixed(3)}x, p99 ${paired(p99(base), p99(subject)).toFixed(3)}x (medians of the per-round ratios)`,
  )
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  },
)
