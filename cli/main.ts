/**
 * The `svc` command: finds the command in the manifest, answers `--help`,
 * `--version` and the overview itself, reads the command line against the
 * command's declared arguments, then runs it with the IO it was handed.
 */
import { CliError } from './output/cli-error.ts'
import type { CommandIO } from './output/io.ts'
import { colors, printJson, printLine, reportError } from './output/print.ts'
import { cliVersion } from './version.ts'

/** Runs `svc <argv>`; returns (and sets on `io`) the exit code. */
export async function runCli(argv: readonly string[], io: CommandIO): Promise<number> {
  try {
    await dispatch(argv, io)
  } catch (error) {
    io.exitCode = reportError(io, error)
  }
  return io.exitCode
}

async function dispatch(argv: readonly string[], io: CommandIO): Promise<void> {
  const [first, ...rest] = argv
  if (first === '--version' || first === '-v') return printLine(io, cliVersion())
  // Loaded past --version, which needs none of them.
  const [{ closestCommands, findCommand, loadCommand, loadManifest }, { parseCommandLine }, { renderHelp, renderOverview }] = await Promise.all([
    import('./command/manifest.ts'),
    import('./command/parse-args.ts'),
    import('./command/help.ts'),
  ])
  const manifest = await loadManifest()
  if (first === undefined || first === '--help' || first === '-h') return void io.stdout.write(renderOverview(manifest, colors(io)))
  if (first.startsWith('-')) {
    throw new CliError('E_UNKNOWN_OPTION', `Unknown option ${first}: svc takes a command first`, { hint: 'svc <command> [options]; svc list shows the commands' })
  }
  const entry = findCommand(manifest, first)
  if (entry === undefined) {
    const suggestions = closestCommands(manifest, first)
    throw new CliError('E_UNKNOWN_COMMAND', `Unknown command "${first}"`, {
      hint: suggestions.length > 0 ? `did you mean ${suggestions.join(', ')}? (svc list shows all)` : 'svc list shows all commands',
    })
  }
  const end = rest.indexOf('--')
  const flags = end === -1 ? rest : rest.slice(0, end)
  if (flags.includes('--help') || flags.includes('-h')) return void io.stdout.write(renderHelp(entry, colors(io)))
  const command = await loadCommand(entry)
  const args = parseCommandLine(rest, command.args, entry.name)
  await command.run({ args, io, json: (document: unknown) => printJson(io, document) })
}
