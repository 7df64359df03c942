import autocannon from 'autocannon'
import { startSvcTraceServer } from '/work/main/bench/servers/svc-trace.ts'
const which = process.argv[2]!
const path = process.argv[3]!
const server = await startSvcTraceServer({ trace: which !== 'off', nosink: which === 'nosink' })
const run = (d: number) => new Promise<any>((res) => autocannon({ url: `http://127.0.0.1:${server.port}${path}`, connections: 20, duration: d }, (e: any, r: any) => res(r)))
await run(2)
const r = await run(5)
console.log(which, path, Math.round(r.requests.average), 'req/s', 'p99', r.latency.p99)
await server.close()
