/**
 * Runs one command as citty runs commands: svc checks the command line
 * against the command's declarations first (parse-args.ts), then citty's
 * `runCommand` parses it and runs the command's setup, run and cleanup. The
 * IO reaches the command through citty's context (`data`).
 */
import { runCommand } from 'citty'
import type { CommandIO } from '../output/io.ts'
import type { AnyCommand, RunData } from './define.ts'
import { checkCommandLine } from './parse-args.ts'

export async function runCommandLine(command: AnyCommand, argv: readonly string[], io: CommandIO): Promise<void> {
  const line = checkCommandLine(argv, command.svcArgs, command.meta.name)
  const data: RunData = { io, line }
  await runCommand(command, { rawArgs: line.argv, data })
}
