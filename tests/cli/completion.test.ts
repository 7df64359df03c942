/**
 * `svc completion bash|zsh`, typed into real shells through tmux: bash with
 * bash-completion, bash without it, and zsh (compinit). The expectations are
 * derived from `svc list --json` (and the manifest for options), so the test
 * follows the command set as it grows: `svc mig<TAB>` lists every migrate
 * command, and a prefix with a colon (`make:c`) completes to the full name
 * without doubling what was typed (`make:make:crud`).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadManifest } from '../../cli/command/manifest.ts'
import { REPO_ROOT } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { openTerminal, tmuxAvailable, type Terminal } from '../helpers/terminal.ts'

const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion'
const INSTALL_HINT = 'npm test installs it (scripts/ensure-test-deps.sh)'

let dir: string
let names: string[]
let bashScript: string
let zshScript: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-completion-'))
  const { commands } = await svcJson<{ commands: Array<{ name: string; aliases: string[] }> }>(['list'], { cwd: REPO_ROOT })
  names = commands.flatMap((command) => [command.name, ...command.aliases])
  for (const shell of ['bash', 'zsh'] as const) {
    const result = await runSvc(['completion', shell], { cwd: REPO_ROOT })
    expect(result.exitCode, result.stderr).toBe(0)
    writeFileSync(join(dir, `svc.${shell}`), result.stdout)
    if (shell === 'bash') bashScript = result.stdout
    else zshScript = result.stdout
  }
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A colon prefix shared by two or more commands: `make:c` (make:controller, make:crud) when both exist, else the first such. */
function colonPrefix(): { prefix: string; matches: string[] } {
  const groups = new Map<string, string[]>()
  for (const name of names) {
    const colon = name.indexOf(':')
    if (colon === -1 || colon === name.length - 1) continue
    const prefix = name.slice(0, colon + 2)
    groups.set(prefix, [...(groups.get(prefix) ?? []), name])
  }
  const preferred = groups.get('make:c')
  if (preferred !== undefined && preferred.length >= 2) return { prefix: 'make:c', matches: preferred }
  const [prefix, matches] = [...groups].find(([, group]) => group.length >= 2)!
  return { prefix, matches }
}

/** The shortest prefix of `name`, past its colon, that no other command name starts with. */
function uniquePrefix(name: string): string {
  for (let length = name.indexOf(':') + 2; length <= name.length; length++) {
    const prefix = name.slice(0, length)
    if (names.every((other) => other === name || !other.startsWith(prefix))) return prefix
  }
  return name
}

function promptLine(screen: string, prompt: string): string {
  return screen.split('\n').filter((line) => line.startsWith(prompt)).at(-1) ?? ''
}

/** Types `text`, presses Tab, and returns the screen once `check` holds. */
async function complete(terminal: Terminal, text: string, check: (screen: string) => boolean, what: string): Promise<string> {
  terminal.keys('C-u', 'C-l')
  await terminal.waitFor((screen) => screen.trim().split('\n').length === 1, 'a cleared screen')
  terminal.type(text)
  terminal.keys('Tab')
  return terminal.waitFor(check, what)
}

/** What every shell must do with the generated script (each set up to list ambiguous candidates on the first Tab). */
function completionCases(prompt: string, open: () => Promise<Terminal>) {
  let terminal: Terminal
  beforeAll(async () => {
    terminal = await open()
  })
  afterAll(() => terminal?.close())

  it('svc mig<TAB> offers every migrate command', async () => {
    const expected = names.filter((name) => name.startsWith('mig'))
    expect(expected.length).toBeGreaterThan(1)
    const common = expected.reduce((a, b) => {
      let i = 0
      while (i < a.length && a[i] === b[i]) i++
      return a.slice(0, i)
    })
    // The common part is filled in and the candidates are listed.
    const screen = await complete(
      terminal,
      'svc mig',
      (shown) => promptLine(shown, prompt) === `${prompt}svc ${common}` && expected.every((name) => new RegExp(`(^|\\s)${name}(\\s|$)`, 'm').test(shown)),
      `svc ${common} and the list ${expected.join(', ')}`,
    )
    const listed = screen.split(/\s+/).filter((word) => word.startsWith('mig') && names.includes(word))
    expect(new Set(listed)).toEqual(new Set(expected))
  })

  it('a prefix with a colon completes to the full name, never doubling the prefix', async () => {
    const { prefix, matches } = colonPrefix()
    const namespace = prefix.slice(0, prefix.indexOf(':') + 1)
    // Ambiguous: the candidates are listed (bash lists them without the namespace), the line keeps what was typed.
    const listing = await complete(terminal, `svc ${prefix}`, (screen) => matches.every((name) => screen.includes(name.slice(namespace.length))), `the candidates ${matches.join(', ')}`)
    expect(promptLine(listing, prompt)).toBe(`${prompt}svc ${prefix}`)
    expect(listing).not.toContain(`${namespace}${namespace}`)
    for (const name of matches.slice(0, 3)) {
      const typed = uniquePrefix(name)
      const screen = await complete(terminal, `svc ${typed}`, (shown) => promptLine(shown, prompt).startsWith(`${prompt}svc ${name}`), `svc ${name}`)
      expect(promptLine(screen, prompt)).toBe(`${prompt}svc ${name}`)
    }
  })

  it('options of the command, and the values an option takes', async () => {
    let screen = await complete(terminal, 'svc migrate:rollback --st', (shown) => promptLine(shown, prompt) !== `${prompt}svc migrate:rollback --st`, 'a completed option')
    expect(promptLine(screen, prompt)).toBe(`${prompt}svc migrate:rollback --step=`)
    screen = await complete(terminal, 'svc log:replay svc_1 --format=', (shown) => /\bcurl\b/.test(shown) && /\bhttpie\b/.test(shown), 'curl and httpie')
    screen = await complete(terminal, 'svc log:replay svc_1 --format=h', (shown) => promptLine(shown, prompt).includes('httpie'), '--format=httpie')
    expect(promptLine(screen, prompt)).toBe(`${prompt}svc log:replay svc_1 --format=httpie`)
    screen = await complete(terminal, 'svc completion z', (shown) => promptLine(shown, prompt).includes('zsh'), 'zsh')
    expect(promptLine(screen, prompt)).toBe(`${prompt}svc completion zsh`)
  })
}

describe('svc completion', () => {
  it('prints a script naming every command, alias and option of the manifest', async () => {
    const manifest = await loadManifest()
    for (const command of manifest.commands) {
      for (const name of [command.name, ...command.aliases]) {
        expect(bashScript).toContain(`'${name}'`)
        expect(zshScript).toContain(`${name.replace(/:/g, '\\:')}:`)
      }
      for (const arg of command.args.filter((a) => a.type !== 'positional')) {
        const case_ = bashScript.split('\n').find((line) => line.startsWith(`    '${command.name}'`))!
        expect(case_, `${command.name} --${arg.name}`).toMatch(new RegExp(`--${arg.name}(=|\\s|')`))
        expect(zshScript).toContain(`--${arg.name}`)
      }
    }
    const bad = await runSvc(['completion', 'fish'], { cwd: REPO_ROOT })
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr).toContain('<shell> takes bash or zsh, got "fish"')
  })

  it('requires tmux, bash-completion and zsh to be installed', () => {
    expect(tmuxAvailable(), `tmux is missing: ${INSTALL_HINT}`).toBe(true)
    expect(existsSync(BASH_COMPLETION), `bash-completion is missing: ${INSTALL_HINT}`).toBe(true)
    expect(existsSync('/usr/bin/zsh') || existsSync('/bin/zsh'), `zsh is missing: ${INSTALL_HINT}`).toBe(true)
  })

  async function shell(command: string[], setup: string, prompt: string): Promise<Terminal> {
    const terminal = openTerminal(command)
    await terminal.waitFor((screen) => screen.length > 0, 'the shell')
    terminal.type(`${setup}; echo READY`)
    terminal.keys('Enter')
    await terminal.waitFor((screen) => screen.split('\n').includes('READY'), 'READY')
    terminal.keys('C-l')
    await terminal.waitFor((screen) => screen.trim() === prompt.trim(), 'a clear prompt')
    return terminal
  }

  describe('in bash with bash-completion', () => {
    completionCases('$ ', () => shell(['bash', '--norc', '--noprofile'], `PS1='$ '; bind 'set show-all-if-ambiguous on'; source ${BASH_COMPLETION}; source ${join(dir, 'svc.bash')}`, '$ '))
  })

  describe('in bash without bash-completion', () => {
    completionCases('$ ', () => shell(['bash', '--norc', '--noprofile'], `PS1='$ '; bind 'set show-all-if-ambiguous on'; source ${join(dir, 'svc.bash')}`, '$ '))
  })

  describe('in zsh', () => {
    completionCases('% ', () => shell(['zsh', '-f'], `PS1='%% '; autoload -Uz compinit; compinit -u -D; unsetopt list_ambiguous; source ${join(dir, 'svc.zsh')}`, '% '))
  })
})
