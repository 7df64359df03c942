/**
 * The framework's own cost per request, without sockets: each app's fetch
 * behind @hono/node-server's request listener, fed a fake IncomingMessage
 * and a fake ServerResponse, in a loop (rounds interleaved, medians).
 * A profiling aid for "where the time goes", not part of `npm run bench`:
 *
 *   node --import jiti/register bench/micro.ts [--only='svc /hello traced'] [--rounds=11]
 *   node --cpu-prof --import jiti/register bench/micro.ts --only='svc /hello traced'
 */
import { getRequestListener } from '@hono/node-server'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { honoApp } from './servers/hono.ts'
import { svcBenchApp } from './servers/svc.ts'
import { median } from './lib/stats.ts'
import { CONN_INFO, createApp, defineRoutes, resolveConfig, type App } from 'svc'
import { createTracer, resolveTraceConfig } from 'svc/trace'
import { HELLO_BODY } from './servers/types.ts'

type Listener = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<unknown>

const svc = svcBenchApp({ routes: 1000 })
// The scaling target's other side: the same route among 10 (routes/svc-10 in the bench).
const svcOfTen = svcBenchApp({ routes: 10 })
const hono = honoApp()
// Tracing on (mode all) as the example ships it, every batch dropped: the request path's share of tracing.
const tracer = createTracer({ sink: { write: async () => {}, prune: async () => 0 }, config: resolveTraceConfig({ TRACE_MODE: 'all' }) })
const traced = createApp({
  config: resolveConfig({ APP_ENV: 'production' }),
  tracer,
  plugins: [tracer.plugin],
  web: defineRoutes((r) => {
    r.get('/hello', function hello() {
      return HELLO_BODY.data
    })
  }),
})
// As svc/node's serve calls the app (its connection info carries Node's parsed headers).
const listenerOf = (app: App) =>
  getRequestListener((request, env) => app.fetch(request, { [CONN_INFO]: { remoteAddress: env.incoming.socket.remoteAddress, headers: env.incoming.headers } })) as Listener
const svcListener = listenerOf(svc)
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length)
const allTargets: Array<[string, Listener, string]> = [
  ['hono /hello', getRequestListener(hono.fetch) as Listener, '/hello'],
  ['svc /hello', svcListener, '/hello'],
  ['svc /hello traced', listenerOf(traced), '/hello'],
  ['hono /users/42', getRequestListener(hono.fetch) as Listener, '/users/42'],
  ['svc /users/42', svcListener, '/users/42'],
  ['svc 10 routes', listenerOf(svcOfTen), '/api/target/items/42'],
  ['svc 1000 routes', svcListener, '/api/target/items/42'],
]
const targets = allTargets.filter(([name]) => only === undefined || only.split(',').includes(name))

function fakeIncoming(url: string): IncomingMessage {
  const headers = { host: '127.0.0.1:3000', 'user-agent': 'micro', accept: '*/*' }
  return {
    method: 'GET',
    url,
    headers,
    rawHeaders: Object.entries(headers).flat(),
    socket: { remoteAddress: '127.0.0.1', encrypted: false },
  } as unknown as IncomingMessage
}

let written = 0
const outgoing = {
  writeHead: () => outgoing,
  end: (body: string) => {
    written += body.length
  },
  on: () => outgoing,
  once: () => outgoing,
  hasHeader: () => false,
} as unknown as ServerResponse

interface Timing {
  wall: number
  /** CPU time of the process (user + system), which other processes on a busy machine disturb less. */
  cpu: number
}

async function time(listener: Listener, url: string, iterations: number): Promise<Timing> {
  const started = process.hrtime.bigint()
  const cpu = process.cpuUsage()
  for (let i = 0; i < iterations; i++) await listener(fakeIncoming(url), outgoing)
  const used = process.cpuUsage(cpu)
  return { wall: Number(process.hrtime.bigint() - started) / iterations, cpu: ((used.user + used.system) * 1000) / iterations }
}

const ITERATIONS = 20_000
const ROUNDS = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length) ?? 11)
for (const [, listener, url] of targets) await time(listener, url, ITERATIONS)
const samples = targets.map(() => [] as Timing[])
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, [, listener, url]] of targets.entries()) samples[i]!.push(await time(listener, url, ITERATIONS))
}
// The minimum is the least disturbed by other processes on a shared machine.
const figures = (values: number[]) => `min ${Math.min(...values).toFixed(0).padStart(6)}  median ${median(values).toFixed(0).padStart(6)}`
for (const [i, [name]] of targets.entries()) {
  const taken = samples[i]!
  console.log(`${name.padEnd(20)} wall ${figures(taken.map((t) => t.wall))}  cpu ${figures(taken.map((t) => t.cpu))} ns/request`)
}
if (written === 0) throw new Error('nothing was written')
await tracer.close()
