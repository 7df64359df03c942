/**
 * The benchmark's figures as Markdown, and their place in docs/benchmarks.md:
 * between the two markers below, so a re-run replaces them and nothing else.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { Comparison, Scenario } from '../scenarios.ts'
import { describeWindows, type DisturbanceLimits, type WindowCounts } from './disturbance.ts'
import type { Sample } from './load.ts'
import { median } from './stats.ts'
import { NODE_BASELINE, type StartupResult } from './startup.ts'
import { tracesLost, type TraceCounts } from './trace-counts.ts'

export const START_MARKER = '<!-- bench:results:start -->'
export const END_MARKER = '<!-- bench:results:end -->'

export interface ScenarioResult {
  scenario: Scenario
  samples: Sample[]
  rps: number
  p50: number
  p99: number
  /** Median of the server's CPU microseconds per request. */
  cpu: number
  /** The best round (highest req/s, least CPU a request): the least disturbed by other processes. */
  bestRps: number
  minCpu: number
  /** A traced scenario's server: its trace counts after the rounds (undefined when they could not be read). */
  traces?: TraceCounts
}

export interface ComparisonResult {
  comparison: Comparison
  /** The median of the per-round ratios: what the target is judged on. */
  ratio: number
  /** The subject's median req/s over the peer's (the two medians may come from different rounds). */
  ratioOfMedians: number
  /** The ratio in each round (both measured within the same round). */
  roundRatios: number[]
  subjectP99: number
  peerP99: number
  /** Server CPU per request, subject / peer (lower is cheaper): the median of the per-round ratios. */
  cpuRatio: number
  /** The same two ratios between each one's best round. */
  bestRpsRatio: number
  minCpuRatio: number
  /** For a traced subject: traces its server lost (NaN when its counts could not be read); a target is then not met. */
  tracesLost?: number
  met: boolean | undefined
}

export interface RunInfo {
  date: string
  command: string
  machine: string
  settings: string
  loadBefore: number[]
  loadAfter: number[]
  /** Where the pinned CPUs were watched: the measured windows kept and measured again, and the limits. */
  windows?: WindowCounts
  limits?: DisturbanceLimits
}

export function summarise(scenario: Scenario, samples: Sample[]): ScenarioResult {
  return {
    scenario,
    samples,
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    cpu: median(samples.map((s) => s.cpuPerRequest ?? Number.NaN)),
    bestRps: Math.max(...samples.map((s) => s.rps)),
    minCpu: Math.min(...samples.map((s) => s.cpuPerRequest ?? Number.NaN)),
  }
}

export function compare(comparison: Comparison, results: Map<string, ScenarioResult>): ComparisonResult | undefined {
  const subject = results.get(comparison.subject)
  const peer = results.get(comparison.peer)
  if (subject === undefined || peer === undefined) return undefined
  const rounds = Math.min(subject.samples.length, peer.samples.length)
  const roundRatios = Array.from({ length: rounds }, (_, i) => subject.samples[i]!.rps / peer.samples[i]!.rps)
  // Subject and peer run seconds apart in each round: a slow spell of the machine falls on both, which
  // the ratio of that round cancels and a ratio of two medians (possibly from different rounds) does not.
  const ratio = median(roundRatios)
  const cpuRatio = median(Array.from({ length: rounds }, (_, i) => (subject.samples[i]!.cpuPerRequest ?? Number.NaN) / (peer.samples[i]!.cpuPerRequest ?? Number.NaN)))
  const checks: boolean[] = []
  if (comparison.minRatio !== undefined) checks.push(ratio >= comparison.minRatio)
  if (comparison.p99NoWorse) checks.push(round2(subject.p99) <= round2(peer.p99))
  if (comparison.maxCpuRatio !== undefined) checks.push(cpuRatio <= comparison.maxCpuRatio)
  // A server that dropped traces measured less than tracing: its ratio does not count.
  const lost = subject.scenario.traced ? (subject.traces === undefined ? Number.NaN : tracesLost(subject.traces)) : undefined
  if (lost !== undefined && checks.length > 0) checks.push(lost === 0)
  return {
    comparison,
    ratio,
    ratioOfMedians: subject.rps / peer.rps,
    roundRatios,
    subjectP99: subject.p99,
    peerP99: peer.p99,
    cpuRatio,
    bestRpsRatio: subject.bestRps / peer.bestRps,
    minCpuRatio: subject.minCpu / peer.minCpu,
    ...(lost === undefined ? {} : { tracesLost: lost }),
    met: checks.length === 0 ? undefined : checks.every(Boolean),
  }
}

const round2 = (ms: number) => Math.round(ms * 100) / 100
const ms = (value: number) => value.toFixed(2)
const int = (value: number) => Math.round(value).toLocaleString('en-US')
const x = (value: number) => `${value.toFixed(2)}x`

function target(comparison: Comparison): string {
  const parts: string[] = []
  if (comparison.minRatio !== undefined) parts.push(`req/s >= ${comparison.minRatio.toFixed(2)}x`)
  if (comparison.maxCpuRatio !== undefined) parts.push(`CPU a request <= ${comparison.maxCpuRatio.toFixed(2)}x`)
  if (comparison.p99NoWorse) parts.push('p99 <= peer')
  return parts.length === 0 ? '-' : parts.join(', ')
}

const verdict = (met: boolean | undefined) => (met === undefined ? '' : met ? 'yes' : '**NO**')

/** The median of `node -e 0` in the same run, when it was measured. */
function startupBaseline(results: StartupResult[]): number | undefined {
  return results.find((r) => r.command.name === NODE_BASELINE)?.medianMs
}

export function renderMarkdown(
  info: RunInfo,
  results: ScenarioResult[],
  comparisons: ComparisonResult[],
  startup: { tool: string; results: StartupResult[] } | undefined,
): string {
  const lines: string[] = []
  const busy = Math.max(...info.loadBefore.slice(0, 1), ...info.loadAfter.slice(0, 1))
  lines.push(`_Written by the benchmark on ${info.date}; a re-run replaces this section._`, '')
  lines.push(`- Machine: ${info.machine}`)
  lines.push(`- Command: \`${info.command}\` (${info.settings})`)
  lines.push(
    `- Load average (1, 5, 15 min) before: ${info.loadBefore.map((l) => l.toFixed(2)).join(', ')}; after: ${info.loadAfter.map((l) => l.toFixed(2)).join(', ')}` +
      (busy > 0.5 ? ' (other processes were using the CPUs while this ran: absolute figures are low and noisy; ratios within a round are the fairer reading)' : ''),
  )
  if (info.windows !== undefined && info.limits !== undefined) lines.push(`- ${describeWindows(info.windows, info.limits)}`)
  lines.push('')

  const judged = comparisons.filter((c) => c.met !== undefined)
  if (judged.length > 0 || startup?.results.some((r) => r.command.targetMs !== undefined)) {
    lines.push('### Targets', '', '| target | measured | met |', '| --- | --- | --- |')
    for (const c of judged) {
      const cpu = c.comparison.maxCpuRatio !== undefined ? `, CPU ${x(c.cpuRatio)}` : ''
      const p99 = c.comparison.p99NoWorse ? `, p99 ${ms(c.subjectP99)} vs ${ms(c.peerP99)} ms` : ''
      const lost = c.tracesLost === undefined || c.tracesLost === 0 ? '' : `, ${Number.isNaN(c.tracesLost) ? 'trace counts unknown' : `${int(c.tracesLost)} traces lost`}`
      lines.push(`| ${c.comparison.label}: ${target(c.comparison)} | ${x(c.ratio)}${cpu}${p99}${lost} | ${verdict(c.met)} |`)
    }
    const baseline = startupBaseline(startup?.results ?? [])
    for (const r of startup?.results ?? []) {
      if (r.command.targetMs !== undefined) {
        lines.push(`| \`${r.command.name}\` median < ${r.command.targetMs} ms | ${r.medianMs.toFixed(1)} ms | ${verdict(r.medianMs < r.command.targetMs)} |`)
      }
      if (r.command.maxRatioToNode !== undefined && baseline !== undefined) {
        const ratio = r.medianMs / baseline
        lines.push(`| \`${r.command.name}\` median <= ${r.command.maxRatioToNode.toFixed(1)}x \`${NODE_BASELINE}\` | ${x(ratio)} | ${verdict(ratio <= r.command.maxRatioToNode)} |`)
      }
    }
    lines.push('')
  }

  const groups = new Map<string, ScenarioResult[]>()
  for (const result of results) {
    const group = result.scenario.name.split('/')[0]!
    groups.set(group, [...(groups.get(group) ?? []), result])
  }
  for (const [group, members] of groups) {
    lines.push(`### ${group}`, '', '| scenario | request | req/s (median) | p50 ms | p99 ms | server CPU us/req | req/s by round |', '| --- | --- | ---: | ---: | ---: | ---: | --- |')
    for (const r of members) {
      const rounds = r.samples.map((s) => int(s.rps)).join(' / ')
      const bad = r.samples.reduce((n, s) => n + s.non2xx + s.errors, 0)
      const request = `${r.scenario.method ?? 'GET'} ${r.scenario.path}`
      lines.push(`| ${r.scenario.name} | \`${request}\` | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.cpu.toFixed(1)} | ${rounds}${bad > 0 ? ` (${bad} non-2xx or errors)` : ''} |`)
    }
    lines.push('')
  }

  const traced = results.filter((r) => r.scenario.traced)
  if (traced.length > 0) {
    lines.push('Traces kept (each traced server\'s `/health/ready` after its rounds; scenarios on one server share its counts):', '')
    for (const r of traced) {
      const t = r.traces
      lines.push(t === undefined
        ? `- ${r.scenario.name}: counts could not be read`
        : `- ${r.scenario.name}: ${int(t.accepted)} accepted, ${int(t.written)} written, ${int(t.dropped)} dropped, ${int(t.failed)} failed${t.pending > 0 ? `, ${int(t.pending)} still pending` : ''}`)
    }
    lines.push('')
  }

  if (comparisons.length > 0) {
    lines.push(
      '### Ratios (same run)',
      '',
      'req/s ratio: the median of the per-round ratios (judged against the target); ratio of medians: the two medians divided.',
      '',
      '| comparison | req/s ratio | ratio of medians | range over rounds | best rounds | p99 ms (subject vs peer) | CPU/req ratio (median, least) | target | met |',
      '| --- | ---: | ---: | --- | ---: | --- | --- | --- | --- |',
    )
    for (const c of comparisons) {
      const range = `${x(Math.min(...c.roundRatios))} to ${x(Math.max(...c.roundRatios))}`
      lines.push(`| ${c.comparison.label} | ${x(c.ratio)} | ${x(c.ratioOfMedians)} | ${range} | ${x(c.bestRpsRatio)} | ${ms(c.subjectP99)} vs ${ms(c.peerP99)} | ${x(c.cpuRatio)}, ${x(c.minCpuRatio)} | ${target(c.comparison)} | ${verdict(c.met)} |`)
    }
    lines.push('')
  }

  if (startup !== undefined) {
    const baseline = startupBaseline(startup.results)
    lines.push(
      `### CLI start-up (${startup.tool}, from the repository root: the blog example)`,
      '',
      `| command | median ms | min ms | runs | x \`${NODE_BASELINE}\` | target |`,
      '| --- | ---: | ---: | ---: | ---: | --- |',
    )
    for (const r of startup.results) {
      const targets = [
        ...(r.command.targetMs === undefined ? [] : [`< ${r.command.targetMs} ms`]),
        ...(r.command.maxRatioToNode === undefined ? [] : [`<= ${r.command.maxRatioToNode.toFixed(1)}x`]),
      ]
      const ratio = baseline === undefined ? '-' : x(r.medianMs / baseline)
      lines.push(`| \`${r.command.name}\` | ${r.medianMs.toFixed(1)} | ${r.minMs.toFixed(1)} | ${r.runs} | ${ratio} | ${targets.join(', ') || '-'} |`)
    }
    lines.push('')
  }
  return lines.join('\n')
}

/** Replaces the results section of the page (appends it when the markers are missing). */
export function writeResults(file: string, markdown: string): void {
  const block = `${START_MARKER}\n${markdown.trimEnd()}\n${END_MARKER}`
  const page = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n'
  const start = page.indexOf(START_MARKER)
  const end = page.indexOf(END_MARKER)
  const next =
    start !== -1 && end > start
      ? `${page.slice(0, start)}${block}${page.slice(end + END_MARKER.length)}`
      : `${page.trimEnd()}\n\n## Results\n\n${block}\n`
  writeFileSync(file, next)
}
