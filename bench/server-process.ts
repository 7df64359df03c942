/**
 * One bench server in its own process: `node --import jiti/register
 * bench/server-process.ts '{"factory":"svc","options":{}}'`. Prints one line
 * `READY {"port":…,"headers":{…}}` on stdout, answers `cpu` on stdin with
 * `CPU <microseconds used>` and `mem` with `MEM <peak RSS in bytes>`, and
 * stops on SIGTERM or SIGINT, or when its stdin ends: the bench that started
 * it is gone, however it ended (SIGTERM, SIGKILL, a crash), and a server left
 * running would load the CPU of every later run.
 */
import { createInterface } from 'node:readline'
import { servers } from './servers/index.ts'
import { READY } from './servers/types.ts'

const spec = JSON.parse(process.argv[2] ?? '{}') as { factory?: string; options?: Record<string, unknown> }
const factory = spec.factory === undefined ? undefined : servers[spec.factory]
if (factory === undefined) {
  console.error(`Unknown bench server "${spec.factory}"; known: ${Object.keys(servers).join(', ')}`)
  process.exit(2)
}

const server = await factory(spec.options ?? {})
process.stdout.write(`${READY}${JSON.stringify({ port: server.port, headers: server.headers ?? {} })}\n`)

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)

// The load generator asks for this process's CPU time around each run: `cpu` in, `CPU <microseconds>` out;
// and for its peak resident memory: `mem` in, `MEM <bytes>` out.
const requests = createInterface({ input: process.stdin })
requests.on('close', stop)
requests.on('line', (line) => {
  if (line.trim() === 'mem') {
    process.stdout.write(`MEM ${process.resourceUsage().maxRSS * 1024}\n`)
    return
  }
  if (line.trim() !== 'cpu') return
  const usage = process.cpuUsage()
  process.stdout.write(`CPU ${usage.user + usage.system}\n`)
})
