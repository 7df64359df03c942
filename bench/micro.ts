/**
 * The framework's own cost per request, without sockets: each app's fetch
 * behind @hono/node-server's request listener, fed a fake IncomingMessage
 * and a fake ServerResponse, in a loop (rounds interleaved, medians).
 * A profiling aid for "where the time goes", not part of `npm run bench`:
 *
 *   node --import jiti/register bench/micro.ts [--cpu-prof]
 */
import { getRequestListener } from '@hono/node-server'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { honoApp } from './servers/hono.ts'
import { svcBenchApp } from './servers/svc.ts'
import { median } from './lib/stats.ts'
import { CONN_INFO } from 'svc'

type Listener = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<unknown>

const svc = svcBenchApp({ routes: 1000 })
const hono = honoApp()
// As svc/node's serve calls the app: through its synchronous-when-possible entry.
type Handle = (request: Request, env: unknown) => Response | Promise<Response>
const handle = (svc as unknown as Record<symbol, Handle>)[Symbol.for('svc.handle')] ?? ((request: Request, env: unknown) => svc.fetch(request, env))
const svcListener = getRequestListener((request, env) => handle(request, { [CONN_INFO]: { remoteAddress: env.incoming.socket.remoteAddress } })) as Listener
const targets: Array<[string, Listener, string]> = [
  ['hono /hello', getRequestListener(hono.fetch) as Listener, '/hello'],
  ['svc /hello', svcListener, '/hello'],
  ['hono /users/42', getRequestListener(hono.fetch) as Listener, '/users/42'],
  ['svc /users/42', svcListener, '/users/42'],
  ['svc 1,000 routes', svcListener, '/api/target/items/42'],
]

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

async function time(listener: Listener, url: string, iterations: number): Promise<number> {
  const started = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) await listener(fakeIncoming(url), outgoing)
  return Number(process.hrtime.bigint() - started) / iterations
}

const ITERATIONS = 20_000
for (const [, listener, url] of targets) await time(listener, url, ITERATIONS)
const samples = targets.map(() => [] as number[])
for (let round = 0; round < 11; round++) {
  for (const [i, [, listener, url]] of targets.entries()) samples[i]!.push(await time(listener, url, ITERATIONS))
}
// The minimum is the least disturbed by other processes on a shared machine.
for (const [i, [name]] of targets.entries()) {
  console.log(`${name.padEnd(20)} min ${Math.min(...samples[i]!).toFixed(0).padStart(6)}  median ${median(samples[i]!).toFixed(0).padStart(6)} ns/request`)
}
if (written === 0) throw new Error('nothing was written')
