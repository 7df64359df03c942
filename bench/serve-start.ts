/**
 * `svc serve` start-up on the blog example, and `svc live`'s restart:
 *
 *   node --import jiti/register bench/serve-start.ts [--rounds 10] [--ref main]
 *
 * - serve start: from spawning `svc serve --port 0` to its "listening" line,
 *   in three states: `cold` (a new container: jiti's transpile cache empty),
 *   `warm` (jiti's default cache in the temp folder filled by an earlier
 *   start) and `optimized` (after `svc optimize`, with an empty temp folder:
 *   the transpiled modules come from storage/cache/modules). Rounds
 *   interleave the states, so the machine's load falls on all of them.
 * - `--ref <git ref>`: the same cold and warm starts with that build too
 *   (built from `git archive` with this checkout's node_modules, as
 *   bench/ab.ts does), for a before/after.
 * - live restart: a route file is rewritten; the time until a request
 *   answers with the new code (what a developer waits for), and the time
 *   `svc live` itself reports.
 */
import { execFileSync, execSync, spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { numberFlag, parseFlags, withFlags } from './lib/flags.ts'
import { median } from './lib/stats.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { flags, rounds, liveEdits } = withFlags('node --import jiti/register bench/serve-start.ts [--rounds n] [--ref <git-ref>] [--live-edits n]', () => {
  const { values } = parseFlags({ options: { rounds: { type: 'string', default: '10' }, ref: { type: 'string' }, 'live-edits': { type: 'string', default: '8' } } })
  return { flags: values, rounds: Math.round(numberFlag('rounds', values.rounds, 'positive')), liveEdits: Math.round(numberFlag('live-edits', values['live-edits'], 'positive')) }
})
const SECRET = 's'.repeat(48)

interface Build {
  label: string
  root: string
}

/** A copy of examples/blog whose `svc` is `build`'s. */
function appFor(build: Build): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-start-'))
  cpSync(join(ROOT, 'examples', 'blog'), dir, { recursive: true, filter: (path) => !/[\\/](storage[\\/].+|\.env)$/.test(path) })
  writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n')
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(build.root, join(dir, 'node_modules', 'svc'), 'dir')
  // The example's own imports (valibot) resolve as in a project that depends on svc.
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  for (const dependency of Object.keys(manifest.dependencies)) {
    const link = join(dir, 'node_modules', dependency)
    mkdirSync(join(link, '..'), { recursive: true })
    if (existsSync(join(ROOT, 'node_modules', dependency))) symlinkSync(join(ROOT, 'node_modules', dependency), link, 'dir')
  }
  writeFileSync(join(dir, '.env'), `APP_ENV=development\nJWT_SECRET=${SECRET}\nTRACE_MODE=errors\n`)
  return dir
}

function buildRef(ref: string): Build {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ref-'))
  execSync(`git archive ${ref} | tar -x -C ${dir}`, { cwd: ROOT })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' })
  execFileSync(process.execPath, ['dist/cli/command/write-manifest.js'], { cwd: dir, stdio: 'inherit' })
  return { label: ref, root: dir }
}

/**
 * Milliseconds from spawn to the "listening" line, and the CPU time the
 * process used until then (user + system, from /proc: on a machine shared
 * with other work, the CPU time moves much less than the wall time).
 */
function timeStart(build: Build, app: string, temp: string): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [join(build.root, 'dist', 'cli', 'bin.js'), 'serve', '--port', '0'], {
      cwd: app,
      env: { ...process.env, TMPDIR: temp, NO_COLOR: '1' },
    })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      if (output.includes('svc listening on')) {
        const wall = performance.now() - started
        const cpu = cpuMs(child.pid!)
        child.once('exit', () => resolve({ wall, cpu }))
        child.kill('SIGINT')
      }
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.once('exit', (code) => {
      if (!output.includes('svc listening on')) reject(new Error(`serve exited ${code}: ${output}`))
    })
  })
}

const current: Build = { label: 'this tree', root: ROOT }
const builds = [current, ...(flags.ref ? [buildRef(flags.ref)] : [])]
const apps = new Map(builds.map((build) => [build, appFor(build)]))
const optimizedApp = appFor(current)
const optimize = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli', 'bin.js'), 'optimize', '--json'], { cwd: optimizedApp, encoding: 'utf8' })
if (optimize.status !== 0) throw new Error(optimize.stderr)

const warmTemps = new Map(builds.map((build) => [build, mkdtempSync(join(tmpdir(), 'svc-warm-'))]))
const samples = new Map<string, Array<{ wall: number; cpu: number }>>()
const record = (name: string, sample: { wall: number; cpu: number }) => samples.set(name, [...(samples.get(name) ?? []), sample])

/** utime + stime of a running process, in ms (Linux: clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

for (const build of builds) await timeStart(build, apps.get(build)!, warmTemps.get(build)!) // fills the warm caches
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse()
  for (const build of order) {
    const cold = mkdtempSync(join(tmpdir(), 'svc-cold-'))
    record(`${build.label}: cold`, await timeStart(build, apps.get(build)!, cold))
    rmSync(cold, { recursive: true, force: true })
    record(`${build.label}: warm`, await timeStart(build, apps.get(build)!, warmTemps.get(build)!))
    if (build === current) {
      const empty = mkdtempSync(join(tmpdir(), 'svc-cold-'))
      record(`${build.label}: optimized`, await timeStart(build, optimizedApp, empty))
      rmSync(empty, { recursive: true, force: true })
    }
  }
  process.stderr.write(`round ${round + 1}/${rounds}\n`)
}

console.log(`svc serve start-up, ${rounds} interleaved rounds (ms); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
console.log('| Build and state | wall median | wall min | CPU median | CPU min |')
console.log('|---|---:|---:|---:|---:|')
for (const [name, list] of samples) {
  const wall = list.map((sample) => sample.wall)
  const cpu = list.map((sample) => sample.cpu)
  console.log(`| ${name} | ${median(wall).toFixed(0)} | ${Math.min(...wall).toFixed(0)} | ${median(cpu).toFixed(0)} | ${Math.min(...cpu).toFixed(0)} |`)
}

// svc live: edit a route, wait until the new code answers.
const liveApp = apps.get(current)!
const live = spawn(process.execPath, [join(ROOT, 'dist', 'cli', 'bin.js'), 'live', '--port', '0', '--quiet'], { cwd: liveApp, env: { ...process.env, NO_COLOR: '1' } })
let liveOut = ''
live.stdout.setEncoding('utf8').on('data', (chunk: string) => (liveOut += chunk))
live.stderr.setEncoding('utf8').on('data', (chunk: string) => (liveOut += chunk))
const url = await until(() => /svc live listening on (http:\/\/[\d.:]+)/.exec(liveOut)?.[1])
const routes = join(liveApp, 'routes', 'api.ts')
const original = readFileSync(routes, 'utf8')
const seen: number[] = []
const reported: number[] = []
for (let edit = 1; edit <= liveEdits; edit++) {
  const marker = `Edit ${edit}`
  const before = liveOut.length
  const started = performance.now()
  writeFileSync(routes, original.replace('No API route for', `${marker} for`))
  await until(async () => {
    const body = await fetch(`${url}/api/none`, { headers: { connection: 'close' } }).then((response) => response.text(), () => '')
    return body.includes(marker) ? true : undefined
  })
  seen.push(performance.now() - started)
  const said = await until(() => /restarted in (\d+) ms/.exec(liveOut.slice(before))?.[1])
  reported.push(Number(said))
}
writeFileSync(routes, original)
live.kill('SIGINT')
console.log(`\nsvc live restart after a route edit, ${seen.length} edits (debounce 100 ms included): until the new code answers median ${median(seen).toFixed(0)} ms (min ${Math.min(...seen).toFixed(0)}, max ${Math.max(...seen).toFixed(0)}); as live reports it median ${median(reported).toFixed(0)} ms`)

for (const dir of [...apps.values(), optimizedApp, ...warmTemps.values()]) rmSync(dir, { recursive: true, force: true })
for (const build of builds) if (build !== current && existsSync(build.root)) rmSync(build.root, { recursive: true, force: true })

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out; output so far:\n${liveOut}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
