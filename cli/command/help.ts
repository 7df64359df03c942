/**
 * The overview (`svc`), `svc list` and `svc <command> --help`, rendered from
 * the manifest, so that help loads no command (and not citty either).
 *
 * svc renders its help itself rather than with citty's `renderUsage`: citty
 * decides colours once, when it is imported, from the process's environment
 * (NO_COLOR=1, TERM=dumb, CI, TEST), never from whether the output is a
 * terminal, so `svc --help | less` would be coloured and an in-process run
 * could not be told its stdout is a terminal; and its usage has no place for
 * a command's aliases, a value-optional option (`--slow[=<ms>]`), a
 * repeatable one, or the `--json` documents.
 */
import type { ArgDef } from './define.ts'
import type { Colors } from '../output/print.ts'
import { cliVersion } from '../version.ts'
import type { CommandManifest, ManifestArg, ManifestCommand } from './manifest.ts'

/** The commands a newcomer starts with, shown by `svc` alone. */
const FIRST_COMMANDS = ['new', 'start', 'serve', 'route:list', 'migrate', 'key:generate']

export function renderOverview(manifest: CommandManifest, color: Colors): string {
  const first = manifest.commands.filter((command) => FIRST_COMMANDS.includes(command.name))
  first.sort((a, b) => FIRST_COMMANDS.indexOf(a.name) - FIRST_COMMANDS.indexOf(b.name))
  const width = Math.max(...first.map((command) => command.name.length))
  return [
    `${color.bold(`svc ${cliVersion()}`)}: token-authenticated JSON APIs`,
    '',
    'Usage: svc <command> [options]',
    '',
    'Common commands:',
    ...first.map((command) => `  ${color.green(command.name.padEnd(width))}  ${command.description}`),
    '',
    `All ${manifest.commands.length} commands: svc list    Help for one: svc help <command> (or svc <command> --help)`,
    '',
  ].join('\n')
}

/** `svc list`: every command, grouped, with its aliases. */
export function renderCommandList(manifest: CommandManifest, color: Colors): string {
  const { commands } = manifest
  const width = Math.max(...commands.map((command) => command.name.length))
  const lines: string[] = []
  let group = ''
  for (const command of commands) {
    if (command.group !== group) {
      if (group !== '') lines.push('')
      group = command.group
      lines.push(color.bold(group))
    }
    const aliases = command.aliases.length > 0 ? color.dim(` (alias: ${command.aliases.join(', ')})`) : ''
    lines.push(`  ${color.green(command.name.padEnd(width))}  ${command.description}${aliases}`)
  }
  return `${lines.join('\n')}\n`
}

export function renderHelp(command: ManifestCommand, color: Colors): string {
  const positionals = command.args.filter((arg) => arg.type === 'positional')
  const options = command.args.filter((arg) => arg.type !== 'positional')
  const usage = [`svc ${command.name}`, ...(options.length > 0 ? ['[OPTIONS]'] : []), ...positionals.map(positionalUsage)]
  const lines = [`${command.description} ${color.dim(`(${command.group})`)}`, '', `${color.bold('USAGE')} ${color.cyan(usage.join(' '))}`, '']
  if (command.aliases.length > 0) lines.push(`${color.bold('ALIASES')} ${command.aliases.map((alias) => `svc ${alias}`).join(', ')}`, '')
  if (positionals.length > 0) {
    lines.push(color.bold('ARGUMENTS'), '', ...columns(positionals.map((arg) => [`<${arg.name}>`, describe(arg)]), color), '')
  }
  if (options.length > 0) lines.push(color.bold('OPTIONS'), '', ...columns(options.flatMap((arg) => optionRows(arg)), color), '')
  if (command.json.length > 0) lines.push(color.dim(`--json prints ${command.json.join(' or ')} (cli/contract, docs/cli.md).`), '')
  return lines.join('\n')
}

/** `<shell>`, `[path]`, `[items...]`: how a positional argument is written in a usage line. */
export function positionalUsage(arg: ManifestArg): string {
  const name = `${arg.name}${arg.multiple ? '...' : ''}`
  return arg.required ? `<${name}>` : `[${name}]`
}

function optionRows(arg: ManifestArg): string[][] {
  const names = [...(arg.alias === null ? [] : [`-${arg.alias}`]), `--${arg.name}`].join(', ')
  if (arg.type === 'boolean') {
    const rows = [[names, describe(arg)]]
    if (arg.default === true) rows.push([`--no-${arg.name}`, 'Turn it off'])
    return rows
  }
  const hint = `<${valueHint(arg)}>`
  return [[`${names}${arg.valueOptional ? `[=${hint}]` : `=${hint}`}`, describe(arg)]]
}

function describe(arg: ManifestArg): string {
  const notes = [
    arg.type === 'positional' && arg.options !== null ? `one of: ${arg.options.join(', ')}` : '',
    arg.multiple ? (arg.type === 'positional' ? 'any number' : 'repeatable') : '',
    arg.default !== null && arg.default !== false ? `default: ${arg.default}` : '',
    arg.type === 'positional' && !arg.required ? 'optional' : '',
  ].filter(Boolean)
  return notes.length === 0 ? arg.description : `${arg.description} (${notes.join('; ')})`
}

function columns(rows: string[][], color: Colors): string[] {
  const width = Math.max(...rows.map(([left]) => left!.length))
  return rows.map(([left, right]) => `  ${color.cyan(left!.padEnd(width))}  ${right}`)
}

/** What `<...>` says after an option that takes a value. */
export function valueHint(def: { type: ArgDef['type']; options?: readonly string[] | null; valueHint?: string | null }): string {
  if (def.type === 'enum' && def.options) return def.options.join('|')
  return def.valueHint ?? (def.type === 'number' ? 'n' : 'value')
}
