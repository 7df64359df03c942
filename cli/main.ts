/**
 * The `svc` command. Dispatches to lazily loaded subcommands; handles the
 * overview, `--version` and unknown commands itself.
 */
import { runCommand, showUsage, type CommandDef } from 'citty'
import { closestCommands, commands, findCommand } from './registry.ts'
import { reportError } from './output/print.ts'
import { CliError } from './output/cli-error.ts'
import { cliVersion } from './version.ts'

export async function runCli(argv: string[]): Promise<void> {
  const [first] = argv
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${cliVersion()}\n`)
    return
  }
  if (first === undefined || first === '--help' || first === '-h') {
    process.stdout.write(overview())
    return
  }
  const entry = findCommand(first)
  if (entry === undefined) {
    const suggestions = closestCommands(first)
    process.exitCode = reportError(
      new CliError('E_UNKNOWN_COMMAND', `Unknown command "${first}"`, {
        hint: suggestions.length > 0 ? `did you mean ${suggestions.join(', ')}? (svc list shows all)` : 'svc list shows all commands',
      }),
    )
    return
  }
  const command: CommandDef<any> = await entry.load()
  const meta = { name: `svc ${entry.name}`, version: cliVersion(), description: entry.description }
  const described: CommandDef<any> = { ...command, meta }
  const rawArgs = argv.slice(1)
  if (rawArgs.includes('--help') || rawArgs.includes('-h')) {
    await showUsage(described)
    return
  }
  try {
    await runCommand(described, { rawArgs })
  } catch (error) {
    // citty's own argument errors (a missing positional...) come with the usage.
    if (error instanceof Error && error.name === 'CLIError') {
      await showUsage(described)
      process.exitCode = reportError(new CliError('E_BAD_ARGUMENTS', error.message))
      return
    }
    process.exitCode = reportError(error)
  }
}

function overview(): string {
  const common = ['serve', 'route:list', 'migrate', 'key:generate']
  const width = Math.max(...common.map((name) => name.length))
  return [
    `svc ${cliVersion()}: token-authenticated JSON APIs`,
    '',
    'Usage: svc <command> [options]',
    '',
    'Common commands:',
    ...common.map((name) => `  ${name.padEnd(width)}  ${findCommand(name)!.description}`),
    '',
    `All ${commands.length} commands: svc list    Help for one: svc <command> --help`,
    '',
  ].join('\n')
}
