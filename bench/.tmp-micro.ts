import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, createTracer, defineRoutes, resolveConfig, resolveTraceConfig, TraceStore } from '../framework/index.ts'
import { openTraceStore } from '../framework/node/index.ts'
const mode = process.argv[2]
const dir = mkdtempSync(join(tmpdir(), 'tm-'))
const store = mode === 'off' ? undefined : await openTraceStore({ storageDir: dir, projectDir: dir })
const sink = mode === 'nosink' ? { write: async () => {}, prune: async () => 0 } : store
const tracer = sink ? createTracer({ sink: sink as any, config: resolveTraceConfig({}) }) : undefined
const app = createApp({ config: resolveConfig({ APP_ENV: 'production' }), tracer, web: defineRoutes((r) => { r.get('/hello', () => ({ message: 'Hello, world!' })) }) })
const N = 30000
const c0 = process.cpuUsage(); const t0 = performance.now()
for (let i = 0; i < N; i += 100) {
  await Promise.all(Array.from({ length: 100 }, async () => { const r = await app.fetch(new Request('http://127.0.0.1/hello', { headers: { 'user-agent': 'x', accept: '*/*', host: '127.0.0.1' } }), { clientAddress: '127.0.0.1' }); await r.text() }))
}
await tracer?.flush()
const ms = performance.now() - t0
const cpu = process.cpuUsage(c0)
console.log(mode, 'wall', (ms * 1000 / N).toFixed(1), 'us/req', 'cpu', ((cpu.user + cpu.system) / N).toFixed(1), 'us/req')
await tracer?.close()
