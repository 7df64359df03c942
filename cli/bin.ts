#!/usr/bin/env node
import { runCli } from './main.ts'
import { processIO } from './output/io.ts'
import { PARENT_GONE, watchParent } from './server/parent-watch.ts'
import { leaveCluster, listenAsWorker } from './server/worker.ts'

// `svc list --raw | head -1`: the reader left; stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

// A command that runs until stopped (serve, log:tail) stops on the first signal; a second one ends the process.
// A worker of `svc live` / `svc serve:prod` leaves SIGINT to its supervisor (server/worker.ts).
const stop = new AbortController()
const worker = listenAsWorker(stop)
for (const signal of worker ? (['SIGTERM'] as const) : (['SIGINT', 'SIGTERM'] as const)) {
  process.once(signal, () => {
    stop.abort(signal)
    process.once(signal, () => process.exit(130))
  })
}

// Started by npm (npx svc serve, npm start), which does not pass SIGTERM on: stopped as on SIGTERM once npm is gone.
// A worker's supervisor stops it itself.
if (!worker) watchParent(() => stop.abort(PARENT_GONE), { env: process.env })

process.exitCode = await runCli(process.argv.slice(2), processIO(stop.signal))
if (worker) {
  await leaveCluster()
  process.exit()
}
