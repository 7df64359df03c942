/** The command-line reader every command goes through (cli/command/parse-args.ts). */
import { describe, expect, it } from 'vitest'
import type { ArgsDef } from '../../cli/command/define.ts'
import { parseCommandLine } from '../../cli/command/parse-args.ts'

const args = {
  id: { type: 'positional', required: false, description: 'Trace id' },
  json: { type: 'boolean', description: 'JSON' },
  follow: { type: 'boolean', description: 'Follow', default: true },
  method: { type: 'string', description: 'Method' },
  slow: { type: 'number', description: 'Threshold', min: 0, valueOptional: true },
  limit: { type: 'number', description: 'Limit', integer: true, min: 1, default: 50 },
  format: { type: 'enum', description: 'Format', options: ['curl', 'httpie'] },
  set: { type: 'string', description: 'Field', multiple: true },
  port: { type: 'number', description: 'Port', alias: 'p', integer: true },
  queue: { type: 'string', description: 'Queue', valueHint: 'name', nonEmpty: true },
} as const satisfies ArgsDef

const parse = (...argv: string[]) => parseCommandLine(argv, args, 'test')
const failure = (...argv: string[]) => {
  try {
    parse(...argv)
  } catch (error) {
    return error as { code: string; message: string; hint?: string }
  }
  throw new Error(`${argv.join(' ')} was accepted`)
}

describe('parseCommandLine', () => {
  it('fills defaults: switches false (or their default), lists empty, the rest undefined', () => {
    expect(parse()).toEqual({ id: undefined, json: false, follow: true, method: undefined, slow: undefined, limit: 50, format: undefined, set: [], port: undefined, queue: undefined })
  })

  it('refuses an empty value for a name that cannot be empty (--queue=), and keeps an empty one elsewhere', () => {
    // queue:status --queue= printed "No jobs in ."; db:seed --class= "No seeder  in ...".
    for (const argv of [['--queue='], ['--queue', ''], ['--queue=  ']]) {
      expect(failure(...argv), argv.join(' ')).toMatchObject({ code: 'E_BAD_OPTION', message: expect.stringMatching(/^--queue needs a value, got "\s*"$/), hint: '--queue=<name>' })
    }
    expect(parse('--queue=mail').queue).toBe('mail')
    expect(parse('--method=').method).toBe('')
  })

  it('reads --name=value, --name value, -p value, --no-switch and repeated options', () => {
    expect(parse('abc', '--method', 'GET', '--limit=3', '-p', '8080', '--no-follow', '--json', '--set', 'a=1', '--set=b=2')).toMatchObject({
      id: 'abc',
      method: 'GET',
      limit: 3,
      port: 8080,
      follow: false,
      json: true,
      set: ['a=1', 'b=2'],
    })
    expect(parse('--json=false').json).toBe(false)
  })

  it('an option whose value may be left out takes the next word only when it is a number', () => {
    expect(parse('--slow', '--method', 'GET')).toMatchObject({ slow: true, method: 'GET' })
    expect(parse('--slow', '--limit', '2')).toMatchObject({ slow: true, limit: 2 })
    expect(parse('--slow', '300')).toMatchObject({ slow: 300, id: undefined })
    expect(parse('--slow', 'abc123')).toMatchObject({ slow: true, id: 'abc123' })
    expect(parse('--slow=0').slow).toBe(0)
    expect(parse('--slow')).toMatchObject({ slow: true })
  })

  it('a value that starts with a dash is given with =; words after -- are positional', () => {
    expect(parse('--method=-x').method).toBe('-x')
    expect(parse('--', '--json').id).toBe('--json')
    expect(parse('--', '--json').json).toBe(false)
  })

  it('unknown options name the closest known one', () => {
    expect(failure('--limt=3')).toMatchObject({ code: 'E_UNKNOWN_OPTION', message: 'Unknown option --limt for svc test' })
    expect(failure('--limt=3').hint).toContain('did you mean --limit?')
    expect(failure('--no-limit').code).toBe('E_UNKNOWN_OPTION') // only switches have a --no- form
    expect(failure('-x').code).toBe('E_UNKNOWN_OPTION')
    expect(failure('--p=1').code).toBe('E_UNKNOWN_OPTION') // a one-letter alias takes one dash
  })

  it('wrong values are E_BAD_OPTION; positional surplus is E_BAD_ARGUMENTS', () => {
    expect(failure('--limit=0').message).toBe('--limit takes a whole number of at least 1, got "0"')
    expect(failure('--slow=-5').message).toBe('--slow takes a number of at least 0, got "-5"')
    expect(failure('--format', 'wget').message).toBe('--format takes curl or httpie, got "wget"')
    expect(failure('--method').message).toBe('--method needs a value')
    expect(failure('--no-json=1').code).toBe('E_BAD_OPTION')
    expect(failure('a', 'b')).toMatchObject({ code: 'E_BAD_ARGUMENTS', message: 'Unexpected argument "b"' })
  })

  it('where citty alone would read the line otherwise, svc\'s reading holds', () => {
    expect(parse('-1')).toMatchObject({ id: '-1' }) // a positional that looks like a short option
    expect(parse('-p=8080').port).toBe(8080) // node reads -p=8080 as the value "=8080"
    expect(parse('--slow', '--', '--limit')).toMatchObject({ slow: true, id: '--limit', limit: 50 })
    expect(parse('--method', 'GET', '--method', 'POST').method).toBe('POST') // not repeatable: the last one counts
    const kebab = { 'dry-run': { type: 'boolean', description: 'Dry run' } } as const satisfies ArgsDef
    expect(parseCommandLine(['--dry-run'], kebab, 'test')).toEqual({ 'dry-run': true })
    expect(() => parseCommandLine(['--dryRun'], kebab, 'test')).toThrow('Unknown option --dryRun') // citty accepts the camelCase spelling; svc has one
  })

  it('the last positional may collect every remaining word; a positional may take only listed words', () => {
    const request = {
      method: { type: 'positional', description: 'Method' },
      path: { type: 'positional', required: false, description: 'Path' },
      items: { type: 'positional', multiple: true, required: false, description: 'Fields' },
      json: { type: 'boolean', description: 'JSON' },
    } as const satisfies ArgsDef
    expect(parseCommandLine(['POST', '/x', 'a=1', '--json', 'b:=2', '--', '-c=3'], request, 't')).toEqual({ method: 'POST', path: '/x', items: ['a=1', 'b:=2', '-c=3'], json: true })
    expect(parseCommandLine(['GET', '/x'], request, 't')).toMatchObject({ items: [] })
    expect(parseCommandLine(['GET'], request, 't')).toMatchObject({ path: undefined, items: [] })
    const shell = { shell: { type: 'positional', description: 'Shell', options: ['bash', 'zsh'] } } as const satisfies ArgsDef
    expect(parseCommandLine(['zsh'], shell, 'completion')).toEqual({ shell: 'zsh' })
    expect(() => parseCommandLine(['fish'], shell, 'completion')).toThrow('<shell> takes bash or zsh, got "fish"')
    expect(() => parseCommandLine([], shell, 'completion')).toThrow('Missing argument <shell>')
  })
})
