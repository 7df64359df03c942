/**
 * How a command describes itself: `defineCommand({ meta, args, run })`, one
 * file per command (citty's shape). The metadata is the one source for
 * dispatch, `svc list`, `svc <command> --help`, the overview, docs/cli.md's
 * table and shell completion; the argument declarations are the one source
 * for parsing and validating the command line (see parse-args.ts).
 */
import type { ContractDocuments } from '../contract/index.ts'
import type { CommandIO } from '../output/io.ts'

export type ContractDocumentName = keyof ContractDocuments

export interface CommandMeta {
  /** What users type: `migrate:rollback`. */
  name: string
  /** The heading `svc list` shows it under (`Database`, `Debug and logs`). */
  group: string
  /** One line, without the option names (the help lists those). */
  description: string
  /** Other names that run it (`replay` for `log:replay`). */
  aliases?: readonly string[]
  /**
   * The contract documents (cli/contract) `--json` prints, one of them per
   * run; required for every command that declares `--json`.
   */
  json?: readonly ContractDocumentName[]
}

interface ArgBase {
  /** One line; the option's own name is not repeated in it. */
  description: string
  /** A one-letter alias (`-p`). */
  alias?: string
}

export interface BooleanArg extends ArgBase {
  type: 'boolean'
  /** false unless given; `--no-<name>` sets false. */
  default?: boolean
}

export interface StringArg extends ArgBase {
  type: 'string'
  /** What the value is, shown as `--name=<valueHint>` and used by completion (`dir`, `file`, `url`...). */
  valueHint?: string
  default?: string
  /** May be given several times; the value is then every one, in order. */
  multiple?: boolean
}

export interface NumberArg extends ArgBase {
  type: 'number'
  valueHint?: string
  default?: number
  /** Whole numbers only. */
  integer?: boolean
  min?: number
  max?: number
  /**
   * May be given without a value (`--slow` alone), which the command reads
   * as `true` (its own default, such as TRACE_SLOW_MS). The next word is its
   * value only when it is a number.
   */
  valueOptional?: boolean
}

export interface EnumArg extends ArgBase {
  type: 'enum'
  options: readonly string[]
  default?: string
}

export interface PositionalArg {
  type: 'positional'
  description: string
  /** Required unless false. */
  required?: boolean
  valueHint?: string
}

export type OptionArg = BooleanArg | StringArg | NumberArg | EnumArg
export type ArgDef = OptionArg | PositionalArg
export type ArgsDef = Record<string, ArgDef>

type Absent<A> = A extends { default: unknown } ? never : A extends { type: 'positional'; required: false } ? undefined : A extends { type: 'positional' } ? never : undefined

type ValueOf<A extends ArgDef> = A extends BooleanArg
  ? boolean
  : A extends EnumArg
    ? A['options'][number] | Absent<A>
    : A extends NumberArg
      ? (A extends { valueOptional: true } ? number | true : number) | Absent<A>
      : A extends StringArg
        ? A extends { multiple: true }
          ? string[]
          : string | Absent<A>
        : string | Absent<A>

/** The values a command's `run` receives, typed from its declarations. */
export type ParsedArgs<A extends ArgsDef> = { -readonly [K in keyof A]: ValueOf<A[K]> }

export interface CommandContext<A extends ArgsDef, J extends ContractDocumentName> {
  args: ParsedArgs<A>
  io: CommandIO
  /** Prints one of the command's declared contract documents on stdout (`--json`). */
  json(document: ContractDocuments[J]): void
}

export interface CommandDef<A extends ArgsDef = ArgsDef, J extends ContractDocumentName = ContractDocumentName> {
  meta: CommandMeta & { json?: readonly J[] }
  args: A
  run(context: CommandContext<A, J>): void | Promise<void>
}

/** A command: its metadata, its arguments, and what it does. */
export function defineCommand<const A extends ArgsDef, const J extends ContractDocumentName = never>(command: CommandDef<A, J>): CommandDef<A, J> {
  return command
}

/** A command as the dispatcher sees it, whatever its arguments. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = CommandDef<any, any>

/** The lazy map of one command folder (`cli/commands/<folder>/index.ts`): command name → its module. */
export type CommandLoaders = Record<string, () => Promise<{ default: AnyCommand }>>
