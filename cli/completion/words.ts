/**
 * What shell completion offers, read from the command manifest: each
 * command's names (aliases too), its options as typed on a command line, and
 * what each option's value is (a fixed list, a folder, a file, free text).
 * The bash and zsh scripts are both written from this.
 */
import type { CommandManifest, ManifestArg, ManifestCommand } from '../command/manifest.ts'

/** How an option's value (or a positional argument) is completed. */
export type ValueCompletion = { kind: 'words'; words: string[] } | { kind: 'dir' } | { kind: 'file' } | { kind: 'any' }

export interface CompletionOption {
  /** `--port`, with `-p` as another spelling when declared. */
  spellings: string[]
  description: string
  /** Null for a switch; a value-optional number (`--slow`) is offered as a switch too. */
  value: ValueCompletion | null
  /** Given alone or with `=value` (`--slow`, `--slow=300`). */
  valueOptional: boolean
  repeatable: boolean
}

export interface CompletionPositional {
  name: string
  required: boolean
  multiple: boolean
  value: ValueCompletion
}

export interface CompletionCommand {
  /** The name, then its aliases. */
  names: string[]
  description: string
  options: CompletionOption[]
  positionals: CompletionPositional[]
}

/** Every command of the manifest, with `--help` added to each (the dispatcher answers it). */
export function completionCommands(manifest: CommandManifest): CompletionCommand[] {
  return manifest.commands.map(completionCommand)
}

function completionCommand(command: ManifestCommand): CompletionCommand {
  const options: CompletionOption[] = command.args.filter((arg) => arg.type !== 'positional').flatMap(completionOptions)
  options.push({ spellings: ['--help'], description: 'Show the help of this command', value: null, valueOptional: false, repeatable: false })
  return {
    names: [command.name, ...command.aliases],
    description: command.description,
    options,
    positionals: command.args
      .filter((arg) => arg.type === 'positional')
      .map((arg) => ({ name: arg.name, required: arg.required, multiple: arg.multiple, value: valueCompletion(arg) })),
  }
}

function completionOptions(arg: ManifestArg): CompletionOption[] {
  const spellings = [`--${arg.name}`, ...(arg.alias === null ? [] : [`-${arg.alias}`])]
  const base = { description: arg.description, repeatable: arg.multiple, valueOptional: arg.valueOptional }
  if (arg.type !== 'boolean') return [{ ...base, spellings, value: valueCompletion(arg) }]
  const on = { ...base, spellings, value: null }
  // A switch on by default is turned off with --no-<name>: that is the spelling worth offering.
  return arg.default === true ? [on, { ...base, spellings: [`--no-${arg.name}`], description: `Turn off: ${arg.description}`, value: null }] : [on]
}

function valueCompletion(arg: ManifestArg): ValueCompletion {
  if (arg.options !== null) return { kind: 'words', words: [...arg.options] }
  if (arg.valueHint === 'dir') return { kind: 'dir' }
  if (arg.valueHint === 'file') return { kind: 'file' }
  return { kind: 'any' }
}

/** A single-quoted shell word (bash and zsh alike). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
