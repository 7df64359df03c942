/**
 * `svc` itself, spawned as users run it: the overview, `list` (grouped,
 * `--raw`, `--json`), `<command> --help`, `--version`, unknown commands.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/app.ts'
import { REPO_ROOT, spawnSvc, startSvc } from '../helpers/cli.ts'

const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version
// No app needed for these: run them somewhere that is not one.
const elsewhere = tempDir('svc-cli-')
afterAll(() => elsewhere.remove())
const svc = (...args: string[]) => spawnSvc(args, { cwd: elsewhere.path })

interface CommandListJson {
  commands: Array<{ name: string; group: string; description: string; aliases: string[] }>
}

describe('svc', () => {
  it('without arguments prints the overview', async () => {
    const { code, stdout, stderr } = await svc()
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toContain(`svc ${version}`)
    expect(stdout).toContain('Usage: svc <command> [options]')
    for (const name of ['serve', 'route:list', 'migrate', 'key:generate']) expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'))
    expect(stdout).toMatch(/All \d+ commands: svc list/)
    expect(stdout).not.toMatch(/\x1b\[/) // NO_COLOR
  })

  it('--version prints the version of package.json, alone', async () => {
    for (const flag of ['--version', '-v']) {
      const { code, stdout } = await svc(flag)
      expect(code).toBe(0)
      expect(stdout).toBe(`${version}\n`)
    }
  })

  it('list --json: every command with its group, description and aliases', async () => {
    const { code, stdout } = await svc('list', '--json')
    expect(code).toBe(0)
    const json = JSON.parse(stdout) as CommandListJson
    const names = json.commands.map((command) => command.name)
    for (const name of ['list', 'serve', 'route:list', 'migrate', 'migrate:rollback', 'migrate:status', 'migrate:fresh', 'key:generate']) {
      expect(names).toContain(name)
    }
    for (const command of json.commands) {
      expect(Object.keys(command).sort()).toEqual(['aliases', 'description', 'group', 'name'])
      expect(command.description.length).toBeGreaterThan(0)
    }
    expect(json.commands.find((command) => command.name === 'migrate')!.group).toBe('Database')
    expect(new Set(names).size).toBe(names.length)
  })

  it('list --raw: one name a line, the same names as --json', async () => {
    const raw = await svc('list', '--raw')
    const json = JSON.parse((await svc('list', '--json')).stdout) as CommandListJson
    expect(raw.code).toBe(0)
    expect(raw.stdout.trimEnd().split('\n')).toEqual(json.commands.map((command) => command.name))
  })

  it('list: grouped under headings', async () => {
    const { code, stdout } = await svc('list')
    expect(code).toBe(0)
    const json = JSON.parse((await svc('list', '--json')).stdout) as CommandListJson
    // Blocks separated by blank lines: a heading, then that group's commands.
    const blocks = stdout.trimEnd().split('\n\n').map((block) => block.split('\n'))
    const groups = [...new Set(json.commands.map((command) => command.group))]
    expect(blocks.map(([heading]) => heading)).toEqual(groups)
    for (const [heading, ...rows] of blocks) {
      const members = json.commands.filter((command) => command.group === heading).map((command) => command.name)
      expect(rows.map((row) => /^  (\S+)/.exec(row)?.[1])).toEqual(members)
    }
    expect(stdout).toMatch(/^  migrate:rollback +Roll back the last batch/m)
  })

  it('list --raw piped into a reader that stops early (| head -1) exits quietly', async () => {
    const child = startSvc(['list', '--raw'], { cwd: elsewhere.path })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.stdout.destroy() // the reader went away before svc finished writing
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(stderr).not.toContain('EPIPE')
    expect(code).toBe(0)
  })

  it.each([
    ['migrate:rollback', ['--step', '--json', '--cwd']],
    ['migrate:status', ['--pending', '--json']],
    ['migrate:fresh', ['--seed', '--json']],
    ['route:list', ['--method', '--path', '--json']],
    ['serve', ['--port', '--host']],
    ['key:generate', ['--show']],
  ])('%s --help describes the command and its options', async (name, options) => {
    const { code, stdout } = await svc(name, '--help')
    expect(code).toBe(0)
    expect(stdout).toContain(`USAGE svc ${name}`)
    for (const option of options) expect(stdout).toContain(option)
  })

  it('an unknown command: non-zero exit, the error code, and the closest names', async () => {
    const { code, stdout, stderr } = await svc('migrat')
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('error [E_UNKNOWN_COMMAND]: Unknown command "migrat"')
    expect(stderr).toMatch(/did you mean migrate\b/)
  })

  it('an unknown command with nothing close: points at svc list', async () => {
    const { code, stderr } = await svc('frobnicate')
    expect(code).toBe(1)
    expect(stderr).toContain('svc list shows all commands')
  })

  it('a command outside an app: E_NO_APP with the fix', async () => {
    const { code, stderr } = await svc('migrate:status')
    expect(code).toBe(1)
    expect(stderr).toContain('error [E_NO_APP]')
    expect(stderr).toContain('--cwd')
  })
})
