/**
 * `npm run bench`: load-tests svc against raw node:http and Hono, with the
 * scenarios of bench/scenarios.ts, and measures CLI start-up. Servers run in
 * child processes pinned to CPU 1, autocannon runs here pinned to CPU 0;
 * rounds are interleaved (A B C A B C ...) and medians are reported.
 *
 *   node --import jiti/register bench/run.ts [--duration 2] [--rounds 5]
 *     [--connections 10] [--warmup 1] [--rewarm 4] [--only json,param/svc,startup] [--no-write]
 *     [--max-steal 2] [--max-others 5] [--retries 3]
 *
 * A measured window during which the hypervisor gave a bench CPU to another
 * guest (steal) or another process used the server's CPU, beyond those
 * percentages, is measured again, up to --retries times (lib/disturbance.ts).
 *
 * A run of every scenario (no --only) rewrites the results section of
 * docs/benchmarks.md; --write forces it, --no-write prevents it.
 */
import { availableParallelism, cpus, loadavg, release, type } from 'node:os'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { checkAnswer, send } from './lib/check.ts'
import { measureServer, measureUndisturbed, type Sample } from './lib/load.ts'
import { DISTURBANCE_OPTIONS, DISTURBANCE_USAGE, disturbanceLimits, newWindowCounts, type WatchedCpus } from './lib/disturbance.ts'
import { numberFlag, parseFlags, withFlags } from './lib/flags.ts'
import { hasTaskset, pinProcess, serverKey, startServer, type RunningBenchServer } from './lib/processes.ts'
import { compare, renderMarkdown, summarise, writeResults, type ComparisonResult, type ScenarioResult } from './lib/report.ts'
import { rotated } from './lib/rounds.ts'
import { measureStartup } from './lib/startup.ts'
import { readTraceCounts } from './lib/trace-counts.ts'
import { measureRegistrationMemory, renderMemory, type MemoryResult } from './lib/memory.ts'
import { comparisons, scenarios, startupCommands, type Scenario } from './scenarios.ts'
import { loadOptions } from './lib/load-options.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))

const USAGE = `npm run bench -- [--duration s] [--rounds n] [--connections n] [--warmup s] [--rewarm s] [--startup-runs n]
                   [--only <group|scenario|startup>[,...]] [--write | --no-write]
                   ${DISTURBANCE_USAGE}
Groups: ${[...new Set(scenarios.map((s) => s.name.split('/')[0]))].join(', ')}, startup, memory`

const { flags, duration, rounds, connections, warmup, rewarm, startupRuns, limits } = withFlags(USAGE, () => {
  const { values } = parseFlags({
    options: {
      duration: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '1' },
      rewarm: { type: 'string', default: '4' },
      'startup-runs': { type: 'string', default: '20' },
      ...DISTURBANCE_OPTIONS,
      only: { type: 'string', multiple: true },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  return {
    flags: values,
    duration: numberFlag('duration', values.duration, 'positive'),
    rounds: Math.round(numberFlag('rounds', values.rounds, 'positive')),
    connections: Math.round(numberFlag('connections', values.connections, 'positive')),
    warmup: numberFlag('warmup', values.warmup, 'non-negative'),
    // Unrecorded load right before each recorded window: the server answers from a warm state, not from the
    // idle minutes it spent while the other scenarios of the round ran (how long depends on what else was
    // selected, so without it a scenario's figure would too); --rewarm 0 measures that cold start. 4 s: after the
    // 3-minute idle of a full run, svc's server needs 2 to 4 s of load to return to its warm cost (V8 deoptimizes
    // code during a long idle: docs/benchmarks.md, "Ninth pass"), where 1 s, the default until then, covered the peer's.
    rewarm: numberFlag('rewarm', values.rewarm, 'non-negative'),
    startupRuns: Math.round(numberFlag('startup-runs', values['startup-runs'], 'positive')),
    limits: disturbanceLimits(values),
  }
})

if (flags.help) {
  console.log(USAGE)
  process.exit(0)
}

const only = (flags.only ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean)

const selects = (name: string) => only.length === 0 || only.some((o) => o === name || name.startsWith(`${o}/`))
const selected = scenarios.filter((s) => selects(s.name))
const runStartup = only.length === 0 || only.includes('startup')
const runMemory = only.length === 0 || only.includes('memory')
const unknown = only.filter((o) => o !== 'startup' && o !== 'memory' && !scenarios.some((s) => s.name === o || s.name.startsWith(`${o}/`)))
if (unknown.length > 0) {
  console.error(`Unknown scenario or group: ${unknown.join(', ')}. Known: ${scenarios.map((s) => s.name).join(', ')}, startup`)
  process.exit(2)
}

// Read before this process pins itself to one CPU (which the count would then reflect).
const cpuCount = availableParallelism()
const multiCore = cpuCount >= 2
const loadCpu = 0
const serverCpu = multiCore ? 1 : undefined
const pinned = multiCore && pinProcess(process.pid, loadCpu)
// Only pinned CPUs can be watched: unpinned, the server's work spreads over every CPU.
const watched: WatchedCpus | undefined = pinned && serverCpu !== undefined && hasTaskset ? { server: serverCpu, load: loadCpu } : undefined
const windows = newWindowCounts()
const loadBefore = loadavg()
const log = (line: string) => process.stderr.write(`${line}\n`)

const servers = new Map<string, RunningBenchServer>()
const stopAll = () => Promise.all([...servers.values()].map((server) => server.stop()))
process.on('SIGINT', () => void stopAll().then(() => process.exit(130)))

async function main(): Promise<number> {
  const results: ScenarioResult[] = []
  if (selected.length > 0) {
    log(`Starting ${new Set(selected.map((s) => serverKey(s.server))).size} servers${serverCpu !== undefined && hasTaskset ? ` on CPU ${serverCpu}` : ''}...`)
    for (const scenario of selected) {
      const key = serverKey(scenario.server)
      if (!servers.has(key)) servers.set(key, await startServer(scenario.server, serverCpu))
    }

    // The wire and the answers first: a wrong or chunked answer is a failure, not a figure.
    const failures: string[] = []
    for (const scenario of selected) {
      const server = servers.get(serverKey(scenario.server))!
      const problems = checkAnswer(scenario, await send(server.url, scenario, server.headers))
      for (const problem of problems) failures.push(`${scenario.name} (${scenario.method ?? 'GET'} ${scenario.path}): ${problem}`)
    }
    if (failures.length > 0) {
      log('\nBENCHMARK ABORTED: a server answered wrongly\n')
      for (const failure of failures) log(`  - ${failure}`)
      return 1
    }

    const minutes = (selected.length * (rounds * (duration + rewarm) + warmup)) / 60
    log(`${selected.length} scenarios x ${rounds} rounds x ${duration} s, ${connections} connections${ownConnections(selected)} (about ${minutes.toFixed(1)} min)`)
    if (warmup > 0) {
      for (const scenario of selected) await measure(scenario, warmup)
    }
    const samples = new Map<string, Sample[]>(selected.map((s) => [s.name, []]))
    for (let round = 1; round <= rounds; round++) {
      // Each round starts one scenario later (A B C, B C A, C A B): a place in the round (after a given
      // server's work, or in step with a periodic disturbance of the host) falls on every scenario in turn,
      // and each scenario keeps its neighbours, so a subject and its peer stay close in time.
      for (const scenario of rotated(selected, round - 1)) {
        if (rewarm > 0) await measure(scenario, rewarm)
        const sample = await measureUndisturbed(() => measure(scenario, duration), watched === undefined ? undefined : limits, windows, log)
        samples.get(scenario.name)!.push(sample)
        log(`round ${round}/${rounds}  ${scenario.name.padEnd(22)} ${Math.round(sample.rps).toString().padStart(7)} req/s  p50 ${sample.p50.toFixed(2)} ms  p99 ${sample.p99.toFixed(2)} ms  cpu ${sample.cpuPerRequest!.toFixed(1)} us/req${sample.non2xx + sample.errors > 0 ? `  (${sample.non2xx} non-2xx, ${sample.errors} errors)` : ''}`)
      }
    }
    for (const scenario of selected) {
      const result = summarise(scenario, samples.get(scenario.name)!)
      if (scenario.traced) {
        const server = servers.get(serverKey(scenario.server))!
        const counts = await readTraceCounts(server.url, server.headers).catch(() => undefined)
        if (counts !== undefined) result.traces = counts
      }
      results.push(result)
    }
    await stopAll()
  }

  const compared: ComparisonResult[] = []
  const byName = new Map(results.map((r) => [r.scenario.name, r]))
  for (const comparison of comparisons) {
    const result = compare(comparison, byName)
    if (result !== undefined) compared.push(result)
  }

  const memory: MemoryResult[] = []
  if (runMemory) {
    const servers: Array<[string, Record<string, unknown>]> = [
      ['svc, native argon2id', { argon2: 'native' }],
      ['svc, native argon2id, PASSWORD_HASH_QUEUE=100', { argon2: 'native', queue: 100 }],
      ['svc, portable argon2id', { argon2: 'portable' }],
    ]
    for (const [label, options] of servers) {
      log(`Memory: 100 registrations at once (${label})...`)
      memory.push(await measureRegistrationMemory(label, { factory: 'svc-hash', options }, serverCpu))
    }
  }

  let startup: ReturnType<typeof measureStartup> | undefined
  if (runStartup) {
    if (!existsSync(`${ROOT}/dist/cli/bin.js`)) {
      log('dist/cli/bin.js is missing: run `npm run build` first (npm run bench does).')
      return 1
    }
    // The commands run on every CPU, as a developer's would: not pinned like the load generator.
    if (pinned) pinProcess(process.pid, `0-${cpuCount - 1}`)
    log(`CLI start-up: ${startupCommands.map((c) => c.name).join(', ')} (${startupRuns} runs each)...`)
    startup = measureStartup(startupCommands, startupRuns, ROOT)
  }

  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU'
  const markdown = renderMarkdown(
    {
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      machine: `${cpuCount} CPUs (${cpu}), ${type()} ${release()}, Node ${process.version}`,
      settings: `${rounds} rounds x ${duration} s per scenario after ${warmup} s of warm-up${rewarm > 0 ? ` (and ${rewarm} s before each round's window)` : ''}, ${connections} connections${ownConnections(selected)}, pipelining 1; ` +
        (pinned && serverCpu !== undefined ? `servers on CPU ${serverCpu}, load generator on CPU ${loadCpu} (taskset)` : 'no CPU pinning'),
      loadBefore,
      loadAfter: loadavg(),
      ...(watched === undefined || windows.kept === 0 ? {} : { windows, limits }),
    },
    results,
    compared,
    startup,
  )
  const report = memory.length > 0 ? `${markdown}\n\n${renderMemory(memory)}` : markdown
  process.stdout.write(`\n${report}\n`)

  const write = flags['no-write'] ? false : (flags.write ?? only.length === 0)
  if (write) {
    writeResults(DOC, report)
    log(`Results written to docs/benchmarks.md`)
  }
  return memory.some((result) => !result.met) ? 1 : 0
}

/** The groups that set their own connection count, as `(json50: 50)`; empty when none was selected. */
function ownConnections(selected: Scenario[]): string {
  const groups = new Set(selected.flatMap((s) => (s.connections === undefined ? [] : [`${s.name.split('/')[0]}: ${s.connections}`])))
  return groups.size === 0 ? '' : ` (${[...groups].join(', ')})`
}

function measure(scenario: Scenario, seconds: number): Promise<Sample> {
  return measureServer(servers.get(serverKey(scenario.server))!, scenario, loadOptions(scenario, connections, seconds), watched)
}

main().then(
  (code) => stopAll().then(() => process.exit(code)),
  (error: unknown) => {
    console.error(error)
    void stopAll().then(() => process.exit(1))
  },
)
