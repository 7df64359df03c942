/**
 * The `svc` command: finds the command in the manifest (names and aliases,
 * without loading any command), answers `--help`, `--version` and the
 * overview itself, then runs the command through citty (command/run.ts) with
 * the IO it was handed. A failure is reported here, once: on stderr, and
 * as a JSON document on stdout when the command line has `--json`. With
 * `--json`, the console (the app's own logging) writes to stderr.
 */
import { CliError } from './output/cli-error.ts'
import type { CommandIO } from './output/io.ts'
import { colors, printLine, reportError, withConsoleOnStderr } from './output/print.ts'
import { cliVersion } from './version.ts'

/** Runs `svc <argv>`; returns (and sets on `io`) the exit code. */
export async function runCli(argv: readonly string[], io: CommandIO): Promise<number> {
  const json = asksForJson(argv)
  try {
    // The app's modules load inside the command (route:list, replay...): a console.log of theirs goes to stderr.
    await (json ? withConsoleOnStderr(io, () => dispatch(argv, io)) : dispatch(argv, io))
  } catch (error) {
    io.exitCode = reportError(io, error, { json })
  }
  return io.exitCode
}

/**
 * Whether the command line asks for JSON, read from the words themselves: a
 * failure can come before the line is parsed (an unknown command or option,
 * a bad value), and the caller who wrote `--json` still expects a document.
 */
export function asksForJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  const options = end === -1 ? argv : argv.slice(0, end)
  let json = false
  // The last word counts, as for any switch (`--json --no-json` is off).
  for (const word of options) {
    if (word === '--json' || word === '--json=true') json = true
    else if (word === '--no-json' || word === '--json=false') json = false
  }
  return json
}

async function dispatch(argv: readonly string[], io: CommandIO): Promise<void> {
  const [first, ...rest] = argv
  if (first === '--version' || first === '-v') return printLine(io, cliVersion())
  // Loaded past --version, which needs none of them; citty only once a command runs (run.ts).
  const [{ knownCommand, loadCommand, loadManifest }, { renderCommandList, renderHelp, renderOverview }] = await Promise.all([
    import('./command/manifest.ts'),
    import('./command/help.ts'),
  ])
  const manifest = await loadManifest()
  if (first === undefined || first === '--help' || first === '-h') return void io.stdout.write(renderOverview(manifest, colors(io)))
  // `svc list` alone, answered as the overview is (its options go through the command: citty's parsing, --json).
  if (first === 'list' && rest.length === 0) return void io.stdout.write(renderCommandList(manifest, colors(io)))
  // `svc help <command>`, as git, npm and artisan take it: the same page as `svc <command> --help`.
  if (first === 'help') {
    const name = rest.find((word) => !word.startsWith('-'))
    return void io.stdout.write(name === undefined ? renderOverview(manifest, colors(io)) : renderHelp(knownCommand(manifest, name), colors(io)))
  }
  if (first.startsWith('-')) {
    throw new CliError('E_UNKNOWN_OPTION', `Unknown option ${first}: svc takes a command first`, { hint: 'svc <command> [options]; svc list shows the commands' })
  }
  const entry = knownCommand(manifest, first)
  const end = rest.indexOf('--')
  const flags = end === -1 ? rest : rest.slice(0, end)
  if (flags.includes('--help') || flags.includes('-h')) return void io.stdout.write(renderHelp(entry, colors(io)))
  const [command, { runCommandLine }] = await Promise.all([loadCommand(entry), import('./command/run.ts')])
  await runCommandLine(command, rest, io)
}
