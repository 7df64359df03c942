#!/usr/bin/env node
import { runCli } from './main.ts'

// `svc list --raw | head -1`: the reader left; stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

await runCli(process.argv.slice(2))
