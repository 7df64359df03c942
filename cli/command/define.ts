/**
 * How a command describes itself: `defineCommand({ meta, args, run })`, one
 * file per command. What it returns is a citty command (`meta`, `args`,
 * `setup`, `run`, `cleanup`), run by citty's `runCommand` (run.ts): citty
 * parses the command line and runs the lifecycle; svc checks the line against
 * the declarations first and adds what citty's argument types cannot say
 * (parse-args.ts). svc's declarations ride beside citty's as `svcArgs`.
 *
 * The metadata is the one source for dispatch, `svc list`, `svc <command>
 * --help`, the overview, docs/cli.md's table and shell completion (the
 * manifest, manifest.ts); the declarations are the one source for reading the
 * command line.
 */
import type { ArgsDef as CittyArgsDef, CommandContext as CittyContext, CommandDef as CittyCommandDef, CommandMeta } from 'citty'
import type { ContractDocuments } from '../contract/index.ts'
import type { CommandIO } from '../output/io.ts'
import { printJson } from '../output/print.ts'
import { cittyArgs, commandValues, type CheckedLine } from './parse-args.ts'

export type ContractDocumentName = keyof ContractDocuments

// svc's metadata lives in citty's own `meta` (citty already has `name`, `description` and `alias`).
declare module 'citty' {
  interface CommandMeta {
    /** The heading `svc list` shows it under (`Database`, `Debug and logs`). */
    group?: string
    /**
     * The contract documents (cli/contract) `--json` prints, one of them per
     * run; required for every command that declares `--json`.
     */
    json?: readonly ContractDocumentName[]
  }
}

/**
 * citty's meta with what svc requires of it: `name` (what users type:
 * `migrate:rollback`), `group`, `description` (one line, without the option
 * names: the help lists those); `alias` for other names that run it
 * (`replay` for `log:replay`), `json` for the documents `--json` prints.
 */
export type SvcCommandMeta<J extends ContractDocumentName = ContractDocumentName> = CommandMeta & {
  name: string
  group: string
  description: string
  json?: readonly J[]
}

/*
 * The argument declarations: citty's shapes (`boolean`, `string`, `enum`,
 * `positional` with `description`, `valueHint`, `default`, `alias`) and what
 * citty's have no word for: `number` (`integer`, `min`, `max`,
 * `valueOptional`) and repeatable strings (`multiple`). `cittyArgs`
 * (parse-args.ts) turns them into citty's.
 */
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
  /** A name that cannot be empty: `--queue=` is refused (E_BAD_OPTION), not read as a queue named "". */
  nonEmpty?: boolean
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
  /** The last positional only: every remaining word, as a list (`svc t POST /x a=1 b=2`). */
  multiple?: boolean
  /** The words it accepts (`bash`, `zsh`): checked, listed in the help, offered by completion. */
  options?: readonly string[]
}

export type OptionArg = BooleanArg | StringArg | NumberArg | EnumArg
export type ArgDef = OptionArg | PositionalArg
export type ArgsDef = Record<string, ArgDef>

type Absent<A> = A extends { default: unknown } ? never : A extends { type: 'positional'; required: false } ? undefined : A extends { type: 'positional' } ? never : undefined

type ValueOf<A extends ArgDef> = A extends BooleanArg
  ? boolean
  : A extends { type: 'positional'; multiple: true }
    ? string[]
    : A extends { type: 'positional'; options: readonly string[] }
      ? A['options'][number] | Absent<A>
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

/** What a command file writes: svc's declarations, and its lifecycle (citty's, with svc's context). */
export interface CommandDef<A extends ArgsDef = ArgsDef, J extends ContractDocumentName = ContractDocumentName> {
  meta: SvcCommandMeta<J>
  args: A
  /** Before `run` (citty's lifecycle). */
  setup?(context: CommandContext<A, J>): void | Promise<void>
  run(context: CommandContext<A, J>): void | Promise<void>
  /** After `run`, even when it failed. */
  cleanup?(context: CommandContext<A, J>): void | Promise<void>
}

/** A svc command: a citty command that also carries svc's declarations. */
export interface SvcCommand<A extends ArgsDef = ArgsDef, J extends ContractDocumentName = ContractDocumentName> extends CittyCommandDef<CittyArgsDef> {
  meta: SvcCommandMeta<J>
  /** What citty's parser reads, derived from `svcArgs`. */
  args: CittyArgsDef
  /** The declarations as the command wrote them (numbers, repeatable options: see parse-args.ts). */
  svcArgs: A
  run(context: CittyContext<CittyArgsDef>): Promise<void>
}

/** What svc hands citty's `runCommand` as `data` (run.ts). */
export interface RunData {
  io: CommandIO
  line: CheckedLine
}

/** A command: its metadata, its arguments, and what it does. */
export function defineCommand<const A extends ArgsDef, const J extends ContractDocumentName = never>(command: CommandDef<A, J>): SvcCommand<A, J> {
  // citty hands setup, run and cleanup the same context: they get the same svc context.
  const contexts = new WeakMap<CittyContext<CittyArgsDef>, CommandContext<A, J>>()
  const svcContext = (context: CittyContext<CittyArgsDef>): CommandContext<A, J> => {
    let found = contexts.get(context)
    if (found === undefined) {
      const data = context.data as RunData | undefined
      if (data === undefined) throw new Error(`svc ${command.meta.name} runs through runCommandLine (cli/command/run.ts), which checks its command line and hands it its IO`)
      const { io, line } = data
      found = { args: commandValues(context.args, command.args, line) as ParsedArgs<A>, io, json: (document) => printJson(io, document) }
      contexts.set(context, found)
    }
    return found
  }
  const { setup, run, cleanup } = command
  return {
    meta: command.meta,
    args: cittyArgs(command.args),
    svcArgs: command.args,
    ...(setup && { setup: async (context: CittyContext<CittyArgsDef>) => setup(svcContext(context)) }),
    run: async (context) => run(svcContext(context)),
    ...(cleanup && { cleanup: async (context: CittyContext<CittyArgsDef>) => cleanup(svcContext(context)) }),
  }
}

/** A command as the dispatcher sees it, whatever its arguments. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = SvcCommand<any, any>

/** The lazy map of one command folder (`cli/commands/<folder>/index.ts`): command name → its module. */
export type CommandLoaders = Record<string, () => Promise<{ default: AnyCommand }>>
