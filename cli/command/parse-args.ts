/**
 * Reads a command line against the command's declared arguments, before the
 * command runs. Every problem is a CliError: an option the command does not
 * declare (E_UNKNOWN_OPTION, with the closest names), a value of the wrong
 * type or a missing value (E_BAD_OPTION), a missing or surplus positional
 * argument (E_BAD_ARGUMENTS).
 *
 * Conventions (docs/cli.md): `--name=value` or `--name value`; `--no-name`
 * for a boolean; `-x` for a one-letter alias; a value that starts with a dash
 * is given with `=`; every word after `--` is a positional argument. citty's
 * own parser ignores unknown options and reads `--slow --limit 2` as
 * slow="--limit", so svc reads the line itself (citty's argument shapes).
 */
import { CliError } from '../output/cli-error.ts'
import type { ArgDef, ArgsDef, NumberArg, OptionArg, PositionalArg } from './define.ts'
import { closestNames } from './suggest.ts'


/** `svc <command>`'s name in messages (`svc migrate:rollback`). */
export function parseCommandLine(argv: readonly string[], defs: ArgsDef, command: string): Record<string, unknown> {
  const options = new Map<string, [string, OptionArg]>()
  const positionals: Array<[string, PositionalArg]> = []
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional') positionals.push([name, def])
    else {
      options.set(name, [name, def])
      if (def.alias !== undefined) options.set(def.alias, [name, def])
    }
  }
  const values: Record<string, unknown> = {}
  const words: string[] = []

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
    if (entry === undefined || (spelled.startsWith('--') && key.length === 1) || (!spelled.startsWith('--') && key.length !== 1)) {
      throw unknownOption(spelled, defs, command)
    }
    const [name, def] = entry
    if (def.type === 'boolean') {
      if (negated && inline !== undefined) throw new CliError('E_BAD_OPTION', `${spelled} takes no value`)
      values[name] = negated ? false : booleanValue(spelled, inline)
      continue
    }
    let text = inline
    if (text === undefined) {
      const next = argv[i + 1]
      if (next !== undefined && next !== '--' && !isOptionLike(next) && (def.type !== 'number' || !def.valueOptional || isNumber(next))) {
        text = next
        i++
      } else if (def.type === 'number' && def.valueOptional) {
        values[name] = true
        continue
      } else {
        throw new CliError('E_BAD_OPTION', `--${name} needs a value`, { hint: `--${name}=<${valueHint(def)}>` })
      }
    }
    const value = optionValue(name, def, text)
    if (def.type === 'string' && def.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value]
    else values[name] = value
  }

  for (const [name, def] of options.values()) {
    if (name in values) continue
    if (def.type === 'boolean') values[name] = def.default ?? false
    else if (def.type === 'string' && def.multiple) values[name] = []
    else values[name] = def.default
  }
  for (const [name, def] of positionals) {
    const word = words.shift()
    if (word === undefined && def.required !== false) {
      throw new CliError('E_BAD_ARGUMENTS', `Missing argument <${name}>: ${def.description}`, { hint: `svc ${command} --help shows the usage` })
    }
    values[name] = word
  }
  if (words.length > 0) {
    throw new CliError('E_BAD_ARGUMENTS', `Unexpected argument "${words[0]}"`, {
      hint: `svc ${command} takes ${positionals.length === 0 ? 'no arguments' : positionals.map(([name]) => `<${name}>`).join(' ')}; svc ${command} --help shows the usage`,
    })
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

function booleanValue(spelled: string, inline: string | undefined): boolean {
  if (inline === undefined || inline === 'true') return true
  if (inline === 'false') return false
  throw new CliError('E_BAD_OPTION', `${spelled} is a switch: give it alone (or =true / =false), got "${inline}"`)
}

function optionValue(name: string, def: Exclude<OptionArg, { type: 'boolean' }>, text: string): string | number {
  if (def.type === 'string') return text
  if (def.type === 'enum') {
    if (!def.options.includes(text)) throw new CliError('E_BAD_OPTION', `--${name} takes ${oneOf(def.options)}, got "${text}"`)
    return text
  }
  const value = Number(text)
  const ok = isNumber(text) && (!def.integer || Number.isInteger(value)) && value >= (def.min ?? -Infinity) && value <= (def.max ?? Infinity)
  if (!ok) throw new CliError('E_BAD_OPTION', `--${name} takes ${numberKind(def)}, got "${text}"`)
  return value
}

/** `a whole number of at least 1`, `a number from 0 to 100`... */
export function numberKind(def: NumberArg): string {
  const kind = def.integer ? 'a whole number' : 'a number'
  if (def.min !== undefined && def.max !== undefined) return `${kind} from ${def.min} to ${def.max}`
  if (def.min !== undefined) return `${kind} of at least ${def.min}`
  if (def.max !== undefined) return `${kind} of at most ${def.max}`
  return kind
}

/** `a, b or c` */
export function oneOf(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`
}

/** What `<...>` says after an option that takes a value. */
export function valueHint(def: { type: ArgDef['type']; options?: readonly string[] | null; valueHint?: string | null }): string {
  if (def.type === 'enum' && def.options) return def.options.join('|')
  return def.valueHint ?? (def.type === 'number' ? 'n' : 'value')
}

function unknownOption(spelled: string, defs: ArgsDef, command: string): CliError {
  const names = Object.entries(defs).flatMap(([name, def]) => (def.type === 'positional' ? [] : def.type === 'boolean' ? [name, `no-${name}`] : [name]))
  const [closest] = closestNames(spelled.replace(/^--?/, ''), names, 1)
  const help = `svc ${command} --help lists its options`
  return new CliError('E_UNKNOWN_OPTION', `Unknown option ${spelled} for svc ${command}`, {
    hint: closest === undefined ? help : `did you mean --${closest}? (${help})`,
  })
}
