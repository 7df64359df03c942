#!/usr/bin/env node
import { runCli } from './main.ts'

await runCli(process.argv.slice(2))
