/**
 * Reading a command line: citty's parser does it, svc checks the line first
 * and fills in what citty's argument types lack.
 *
 * citty (0.2, over node's `util.parseArgs` with `strict: false`) reads
 * `--name=value`, `--name value`, one-letter aliases, `--no-name` and `--`,
 * coerces switches, applies defaults and names the positional words. Left to
 * itself it also accepts any option it was not told about, reads `--slow
 * --limit 2` as slow="--limit" (a string option takes the next word,
 * whatever it is), reads a positional `-1` as an option, keeps only the last
 * of a repeated option and has no numbers. So before citty reads a line,
 * `checkCommandLine` reads it against the declarations: an option the command
 * does not declare is E_UNKNOWN_OPTION (with the closest names), a value of
 * the wrong type or a missing one is E_BAD_OPTION, a missing or surplus
 * positional argument is E_BAD_ARGUMENTS. It hands citty the line in a form
 * citty cannot misread: the options as written, except a value-optional
 * number given alone, which becomes `--name=true`; then `--` and the
 * positional words. After citty, `commandValues` turns number texts into
 * numbers and gives repeatable options every value.
 *
 * Conventions (docs/cli.md): `--name=value` or `--name value`; `--no-name`
 * for a switch; `-x` for a one-letter alias; a value that starts with a dash
 * is given with `=`; every word after `--` is a positional argument.
 */
import { parseArgs, type ArgDef as CittyArgDef, type ArgsDef as CittyArgsDef, type ParsedArgs as CittyParsedArgs } from 'citty'
import { CliError } from '../output/cli-error.ts'
import type { ArgDef, ArgsDef, NumberArg, OptionArg, PositionalArg } from './define.ts'
import { valueHint } from './help.ts'
import { closestNames } from './suggest.ts'

/** A command line svc has checked: what citty is to read, and what citty would lose. */
export interface CheckedLine {
  /** The options, then `--` and the positional words (when there are any). */
  argv: string[]
  /** Every value of each repeatable option, in order (citty keeps the last). */
  repeated: Record<string, string[]>
  /** The words a positional declared `multiple` (the last one) collects (citty names one word a positional). */
  rest: string[]
}

/** The values a command receives for `argv` (checked, then parsed by citty). */
export function parseCommandLine(argv: readonly string[], defs: ArgsDef, command: string): Record<string, unknown> {
  const line = checkCommandLine(argv, defs, command)
  return commandValues(parseArgs(line.argv, cittyArgs(defs)), defs, line)
}

/** Reads `argv` against the declarations; throws a CliError at the first problem. `command` names it in messages. */
export function checkCommandLine(argv: readonly string[], defs: ArgsDef, command: string): CheckedLine {
  const options = new Map<string, [string, OptionArg]>()
  const positionals: Array<[string, PositionalArg]> = []
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional') positionals.push([name, def])
    else {
      options.set(name, [name, def])
      if (def.alias !== undefined) options.set(def.alias, [name, def])
    }
  }
  const optionWords: string[] = []
  const words: string[] = []
  const repeated: Record<string, string[]> = {}

  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (word === '--') {
      words.push(...argv.slice(i + 1))
      break
    }
    if (!isOptionLike(word)) {
      words.push(word)
      continue
    }
    const equals = word.indexOf('=')
    const spelled = equals === -1 ? word : word.slice(0, equals)
    const inline = equals === -1 ? undefined : word.slice(equals + 1)
    const key = spelled.replace(/^--?/, '')
    let entry = options.get(key)
    let negated = false
    if (entry === undefined && spelled.startsWith('--no-') && options.get(key.slice(3))?.[1].type === 'boolean') {
      entry = options.get(key.slice(3))
      negated = true
    }
    // A one-letter alias takes one dash and a name two: `-abc` (citty: -a -b -c) and `-p8080` are not read.
    if (entry === undefined || (spelled.startsWith('--') && key.length === 1) || (!spelled.startsWith('--') && key.length !== 1)) {
      throw unknownOption(spelled, defs, command)
    }
    const [name, def] = entry
    if (def.type === 'boolean') {
      if (negated && inline !== undefined) throw new CliError('E_BAD_OPTION', `${spelled} takes no value`)
      if (inline !== undefined && inline !== 'true' && inline !== 'false') {
        throw new CliError('E_BAD_OPTION', `${spelled} is a switch: give it alone (or =true / =false), got "${inline}"`)
      }
      optionWords.push(word)
      continue
    }
    let text = inline
    if (text === undefined) {
      const next = argv[i + 1]
      if (next !== undefined && next !== '--' && !isOptionLike(next) && (def.type !== 'number' || !def.valueOptional || isNumber(next))) {
        text = next
        i++
      } else if (def.type === 'number' && def.valueOptional) {
        optionWords.push(`--${name}=true`)
        continue
      } else {
        throw new CliError('E_BAD_OPTION', `--${name} needs a value`, { hint: `--${name}=<${valueHint(def)}>` })
      }
      optionWords.push(word, text)
    } else if (spelled.startsWith('--')) optionWords.push(word)
    else optionWords.push(spelled, text) // node reads `-p=8080` as -p with the value "=8080"
    checkValue(name, def, text)
    if (def.type === 'string' && def.multiple) (repeated[name] ??= []).push(text)
  }

  const last = positionals.at(-1)
  const collects = last?.[1].multiple === true
  positionals.forEach(([name, def], i) => {
    if (i >= words.length && def.required !== false) {
      throw new CliError('E_BAD_ARGUMENTS', `Missing argument <${name}>: ${def.description}`, { hint: `svc ${command} --help shows the usage` })
    }
    const given = def.multiple ? words.slice(i) : words.slice(i, i + 1)
    const wrong = def.options === undefined ? undefined : given.find((word) => !def.options!.includes(word))
    if (wrong !== undefined) throw new CliError('E_BAD_ARGUMENTS', `<${name}> takes ${oneOf(def.options!)}, got "${wrong}"`, { hint: `svc ${command} --help shows the usage` })
  })
  if (words.length > positionals.length && !collects) {
    throw new CliError('E_BAD_ARGUMENTS', `Unexpected argument "${words[positionals.length]}"`, {
      hint: `svc ${command} takes ${positionals.length === 0 ? 'no arguments' : positionals.map(([name]) => `<${name}>`).join(' ')}; svc ${command} --help shows the usage`,
    })
  }
  const rest = collects ? words.slice(positionals.length - 1) : []
  return { argv: words.length > 0 ? [...optionWords, '--', ...words] : optionWords, repeated, rest }
}

/** citty's declarations for svc's: a number is a string to citty (its default too), `multiple` and the number limits stay with svc. */
export function cittyArgs(defs: ArgsDef): CittyArgsDef {
  return Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, cittyArg(def)]))
}

function cittyArg(def: ArgDef): CittyArgDef {
  const { description } = def
  switch (def.type) {
    case 'positional':
      // svc checks a collecting positional itself (citty would name only its first word).
      return { type: 'positional', description, valueHint: def.valueHint, required: def.multiple ? false : def.required }
    case 'boolean':
      return { type: 'boolean', description, alias: def.alias, default: def.default }
    case 'enum':
      return { type: 'enum', description, alias: def.alias, options: [...def.options], default: def.default }
    case 'string':
      return { type: 'string', description, alias: def.alias, valueHint: def.valueHint, default: def.default }
    case 'number':
      // node's parseArgs (under citty) rejects a default of another type than the option's, and citty then reads every word as positional.
      return { type: 'string', description, alias: def.alias, valueHint: def.valueHint, default: def.default === undefined ? undefined : String(def.default) }
  }
}

/** What a command's `run` receives: citty's values for the declared names, numbers as numbers, every value of a repeatable option. */
export function commandValues(parsed: CittyParsedArgs, defs: ArgsDef, line: CheckedLine): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [name, def] of Object.entries(defs)) {
    const value = parsed[name]
    if (def.type === 'boolean') values[name] = value ?? false
    else if (def.type === 'positional' && def.multiple) values[name] = line.rest
    else if (def.type === 'string' && def.multiple) values[name] = line.repeated[name] ?? []
    else if (def.type === 'number') values[name] = value === undefined ? undefined : def.valueOptional && value === 'true' ? true : Number(value)
    else values[name] = value
  }
  return values
}

/** `--x`, `-x` (a letter), but not `-`, `-1` or `-.5` (values). */
function isOptionLike(word: string): boolean {
  return /^--./.test(word) || /^-[A-Za-z]/.test(word)
}

function isNumber(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text))
}

function checkValue(name: string, def: Exclude<OptionArg, { type: 'boolean' }>, text: string): void {
  if (def.type === 'string' && def.nonEmpty === true && text.trim() === '') {
    throw new CliError('E_BAD_OPTION', `--${name} needs a value, got "${text}"`, { hint: `--${name}=<${valueHint(def)}>` })
  }
  if (def.type === 'enum' && !def.options.includes(text)) throw new CliError('E_BAD_OPTION', `--${name} takes ${oneOf(def.options)}, got "${text}"`)
  if (def.type !== 'number') return
  const value = Number(text)
  const ok = isNumber(text) && (!def.integer || Number.isInteger(value)) && value >= (def.min ?? -Infinity) && value <= (def.max ?? Infinity)
  if (!ok) throw new CliError('E_BAD_OPTION', `--${name} takes ${numberKind(def)}, got "${text}"`)
}

/** `a whole number of at least 1`, `a number from 0 to 100`... */
function numberKind(def: NumberArg): string {
  const kind = def.integer ? 'a whole number' : 'a number'
  if (def.min !== undefined && def.max !== undefined) return `${kind} from ${def.min} to ${def.max}`
  if (def.min !== undefined) return `${kind} of at least ${def.min}`
  if (def.max !== undefined) return `${kind} of at most ${def.max}`
  return kind
}

/** `a, b or c` */
function oneOf(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`
}

function unknownOption(spelled: string, defs: ArgsDef, command: string): CliError {
  const names = Object.entries(defs).flatMap(([name, def]) => (def.type === 'positional' ? [] : def.type === 'boolean' ? [name, `no-${name}`] : [name]))
  const [closest] = closestNames(spelled.replace(/^--?/, ''), names, 1)
  const help = `svc ${command} --help lists its options`
  return new CliError('E_UNKNOWN_OPTION', `Unknown option ${spelled} for svc ${command}`, {
    hint: closest === undefined ? help : `did you mean --${closest}? (${help})`,
  })
}
