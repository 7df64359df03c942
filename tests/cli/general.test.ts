/**
 * `svc` itself, in-process: the overview, `list` (grouped, `--raw`,
 * `--json`), `<command> --help` (plain unless stdout is a terminal), unknown
 * commands, and the argument rules every command shares: unknown options,
 * value types, `--no-x`, `--`. The spawned binary is covered by e2e.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadManifest, type ManifestCommand } from '../../cli/command/manifest.ts'
import type { CommandListJson } from '../../cli/contract/index.ts'
import { tempDir } from '../helpers/app.ts'
import { copyExampleApp, REPO_ROOT, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version
// No app needed for most of these: run them somewhere that is not one.
const elsewhere = tempDir('svc-cli-')
let app: AppCopy
let commands: ManifestCommand[]
beforeAll(async () => {
  app = copyExampleApp()
  commands = (await loadManifest()).commands
})
afterAll(() => {
  elsewhere.remove()
  app.remove()
})
const svc = (...args: string[]) => runSvc(args, { cwd: elsewhere.path })
const ANSI = /\x1b\[/

describe('svc', () => {
  it('without arguments prints the overview', async () => {
    const { exitCode, stdout, stderr } = await svc()
    expect(exitCode).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toContain(`svc ${version}`)
    expect(stdout).toContain('Usage: svc <command> [options]')
    for (const name of ['serve', 'route:list', 'migrate', 'key:generate']) {
      const description = commands.find((command) => command.name === name)!.description
      expect(stdout).toContain(`  ${name}`)
      expect(stdout).toContain(description)
    }
    expect(stdout).toContain(`All ${commands.length} commands: svc list`)
    expect(stdout).not.toMatch(ANSI)
  })

  it('--version prints the version of package.json, alone', async () => {
    for (const flag of ['--version', '-v']) expect(await svc(flag)).toEqual({ exitCode: 0, stdout: `${version}\n`, stderr: '' })
  })

  it('list --json: every command with its group, description and aliases, from the commands themselves', async () => {
    const json = await svcJson<CommandListJson>(['list'], { cwd: elsewhere.path })
    expect(json.commands).toEqual(commands.map(({ name, group, description, aliases }) => ({ name, group, description, aliases })))
    const names = json.commands.map((command) => command.name)
    for (const name of ['list', 'serve', 'route:list', 'migrate', 'migrate:rollback', 'migrate:status', 'migrate:fresh', 'key:generate']) expect(names).toContain(name)
    expect(json.commands.find((command) => command.name === 'migrate')!.group).toBe('Database')
    expect(json.commands.find((command) => command.name === 'log:replay')!.aliases).toEqual(['replay'])
    expect(new Set(names).size).toBe(names.length)
  })

  it('list --raw: one name a line, the same names as --json', async () => {
    const raw = await svc('list', '--raw')
    expect(raw.exitCode).toBe(0)
    expect(raw.stdout.trimEnd().split('\n')).toEqual(commands.map((command) => command.name))
  })

  it('list: grouped under headings', async () => {
    const { exitCode, stdout } = await svc('list')
    expect(exitCode).toBe(0)
    // Blocks separated by blank lines: a heading, then that group's commands.
    const blocks = stdout.trimEnd().split('\n\n').map((block) => block.split('\n'))
    expect(blocks.map(([heading]) => heading)).toEqual([...new Set(commands.map((command) => command.group))])
    for (const [heading, ...rows] of blocks) {
      const members = commands.filter((command) => command.group === heading).map((command) => command.name)
      expect(rows.map((row) => /^  (\S+)/.exec(row)?.[1])).toEqual(members)
    }
    expect(stdout).toMatch(/^  migrate:rollback +Roll back the last batch/m)
    expect(stdout).toMatch(/^  log:replay +.*\(alias: replay\)$/m)
    // `svc list` alone is answered from the manifest without loading the command (as the overview is):
    // through the command (any argument, `--` here, sends it there), it prints the very same.
    expect((await svc('list', '--')).stdout).toBe(stdout)
  })

  it.each([
    ['migrate:rollback', ['--step=<n>', '--json', '--cwd=<dir>', 'default: 1']],
    ['migrate:status', ['--pending', '--json']],
    ['migrate:fresh', ['--seed', '--json']],
    ['route:list', ['--method=<GET>', '--path=<text>', '--json']],
    ['serve', ['--port=<port>', '--host=<address>']],
    ['key:generate', ['--show', '--rs256']],
    ['log:tail', ['--type=<all|error|slow>', '--no-follow', '--slow[=<ms>]']],
    ['log:replay', ['ALIASES svc replay', '<id>', '--set=<field=value>', 'repeatable', '--format=<curl|httpie>']],
  ])('%s --help describes the command and its options, from its metadata', async (name, parts) => {
    const { exitCode, stdout } = await svc(name, '--help')
    expect(exitCode).toBe(0)
    expect(stdout).toContain(`USAGE svc ${name}`)
    expect(stdout).toContain(commands.find((command) => command.name === name)!.description)
    for (const part of parts) expect(stdout).toContain(part)
  })

  it('--help is plain text unless stdout is a terminal, and NO_COLOR turns colours off there too', async () => {
    const piped = await runSvc(['migrate:rollback', '--help'], { cwd: elsewhere.path, env: { NO_COLOR: '' } })
    expect(piped.stdout).not.toMatch(ANSI)
    const terminal = await runSvc(['migrate:rollback', '--help'], { cwd: elsewhere.path, env: { NO_COLOR: '' }, tty: true })
    expect(terminal.stdout).toMatch(ANSI)
    expect(terminal.stdout.replace(/\x1b\[[0-9;]*m/g, '')).toBe(piped.stdout)
    const noColor = await runSvc(['migrate:rollback', '--help'], { cwd: elsewhere.path, env: { NO_COLOR: '1' }, tty: true })
    expect(noColor.stdout).toBe(piped.stdout)
    expect((await runSvc([], { cwd: elsewhere.path, env: { NO_COLOR: '' }, tty: true })).stdout).toMatch(ANSI)
  })

  it('an unknown command: non-zero exit, the error code, and the closest names', async () => {
    const { exitCode, stdout, stderr } = await svc('migrat')
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('error [E_UNKNOWN_COMMAND]: Unknown command "migrat"')
    expect(stderr).toMatch(/did you mean migrate\b/)
    expect((await svc('frobnicate')).stderr).toContain('svc list shows all commands')
    // A command named without its group (the docs say make:openapi; a user types openapi) is found by that part.
    expect((await svc('openapi')).stderr).toContain('fix: did you mean make:openapi? (svc list shows all)')
    expect((await svc('seed')).stderr).toContain('fix: did you mean db:seed? (svc list shows all)')
    expect((await svc('--frobnicate')).stderr).toContain('error [E_UNKNOWN_OPTION]')
  })

  it('trace:<word> names the trace tool that does it, first (they live under log:)', async () => {
    // Spelling alone answered trace:search with route:search, trace:diff with trace:list, trace:inspect with nothing.
    const cases: Array<[typed: string, meant: string]> = [
      ['trace:search', 'log:trace'],
      ['trace:inspect', 'log:trace'],
      ['trace:diff', 'log:replay'],
      ['trace:tail', 'log:tail'],
      // The word misspelt as well: the closest tool still comes first (trace:serch suggested trace:users).
      ['trace:serch', 'log:trace'],
      ['trace:tial', 'log:tail'],
    ]
    for (const [typed, meant] of cases) {
      const result = await svc(typed)
      expect(result.exitCode, typed).toBe(1)
      expect(result.stderr, typed).toContain(`error [E_UNKNOWN_COMMAND]: Unknown command "${typed}"`)
      expect(result.stderr, typed).toContain(`fix: did you mean ${meant}`)
    }
    expect((await svc('trace:bogus')).stderr).toContain('fix: svc list shows all commands')
  })

  it('svc help <command> is svc <command> --help (as git, npm and artisan take it); svc help alone the overview', async () => {
    const help = await svc('help', 'make:listener')
    expect(help).toEqual(await svc('make:listener', '--help'))
    expect(help.stdout).toContain('USAGE svc make:listener')
    expect(await svc('help', 'replay')).toEqual(await svc('log:replay', '--help'))
    expect(await svc('help')).toEqual(await svc())
    const unknown = await svc('help', 'migrat')
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('error [E_UNKNOWN_COMMAND]: Unknown command "migrat"')
    expect(unknown.stderr).toMatch(/did you mean migrate\b/)
  })

  it('an alias runs its command', async () => {
    const viaAlias = await svc('replay', '--help')
    expect(viaAlias).toEqual(await svc('log:replay', '--help'))
  })

  it('a command outside an app: E_NO_APP with the fix', async () => {
    const { exitCode, stderr } = await svc('migrate:status')
    expect(exitCode).toBe(1)
    expect(stderr).toContain('error [E_NO_APP]')
    expect(stderr).toContain('--cwd')
  })
})

describe('options every command shares the rules of', () => {
  it('a misspelled option is E_UNKNOWN_OPTION with the closest option, before anything runs', async () => {
    const database = app.path('storage', 'database.sqlite')
    const rollback = await runSvc(['migrate:rollback', '--stpe=5'], { cwd: app.dir })
    expect(rollback).toMatchObject({ exitCode: 1, stdout: '' })
    expect(rollback.stderr).toContain('error [E_UNKNOWN_OPTION]: Unknown option --stpe for svc migrate:rollback')
    expect(rollback.stderr).toContain('did you mean --step?')
    const fresh = await runSvc(['migrate:fresh', '--sed'], { cwd: app.dir })
    expect(fresh).toMatchObject({ exitCode: 1, stdout: '' })
    expect(fresh.stderr).toContain('did you mean --seed?')
    expect(existsSync(database)).toBe(false) // nothing ran: no database was opened or created
  })

  it('every command refuses an option it does not declare', async () => {
    for (const command of commands) {
      const { exitCode, stdout, stderr } = await runSvc([command.name, '--no-such-option'], { cwd: elsewhere.path })
      expect(exitCode, command.name).toBe(1)
      expect(stdout, command.name).toBe('')
      expect(stderr, command.name).toContain(`error [E_UNKNOWN_OPTION]: Unknown option --no-such-option for svc ${command.name}`)
    }
  })

  it('a value of the wrong type is E_BAD_OPTION naming the option and what it takes', async () => {
    const cases: Array<[string[], string]> = [
      [['migrate:rollback', '--step=abc'], '--step takes a whole number of at least 1, got "abc"'],
      [['migrate:rollback', '--step', '0'], '--step takes a whole number of at least 1, got "0"'],
      [['trace:list', '--limit=2.5'], '--limit takes a whole number of at least 1, got "2.5"'],
      [['log:export', '--format=xml'], '--format takes json or postman, got "xml"'],
      [['log:tail', '--type', 'slowest'], '--type takes all, error or slow, got "slowest"'],
      [['route:list', '--json=maybe'], '--json is a switch: give it alone (or =true / =false), got "maybe"'],
      [['route:list', '--method'], '--method needs a value'],
      [['route:list', '--path', '--json'], '--path needs a value'],
    ]
    for (const [argv, message] of cases) {
      const { exitCode, stdout, stderr } = await runSvc(argv, { cwd: app.dir })
      expect(exitCode, argv.join(' ')).toBe(1)
      // `--path --json`: the line has --json (as an option, not as --path's value), so the failure is a JSON document too.
      if (argv.includes('--json')) expect(JSON.parse(stdout)).toEqual({ error: { code: 'E_BAD_OPTION', message, fix: expect.any(String), exit_code: 1 } })
      else expect(stdout).toBe('')
      expect(stderr).toContain(`error [E_BAD_OPTION]: ${message}`)
    }
  })

  it('--no-<switch> turns a switch off; it is unknown for an option that takes a value', async () => {
    expect((await runSvc(['migrate:rollback', '--no-step'], { cwd: app.dir })).stderr).toContain('E_UNKNOWN_OPTION')
    const off = await runSvc(['list', '--raw', '--no-raw'], { cwd: elsewhere.path })
    expect(off.stdout).toMatch(/^General$/m) // the grouped view, not the raw one
  })

  it('positional arguments: missing or surplus ones are E_BAD_ARGUMENTS; after -- a word that starts with a dash is one', async () => {
    const missing = await runSvc(['db:why', 'posts'], { cwd: app.dir })
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toContain('error [E_BAD_ARGUMENTS]: Missing argument <id>')
    const surplus = await runSvc(['migrate', 'now'], { cwd: app.dir })
    expect(surplus.stderr).toContain('error [E_BAD_ARGUMENTS]: Unexpected argument "now"')
    const dashed = await runSvc(['log:trace', '--', '--json'], { cwd: app.dir })
    expect(dashed.stderr).toContain('error [E_TRACE_NOT_FOUND]: No trace with id "--json"')
  })
})
