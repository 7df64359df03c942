/**
 * How the commands are laid out: one file per command, found only through
 * its folder's lazy map; shared code lives in cli/<area>/, so no command
 * imports another command's file, and none writes to the process directly;
 * the binary reaches citty and the commands only once it runs one.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/cli.ts'

const COMMANDS = join(REPO_ROOT, 'cli', 'commands')
const files = readdirSync(COMMANDS, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join(COMMANDS, file))
const commandFiles = files.filter((file) => !file.endsWith('index.ts'))

describe('cli/commands', () => {
  it('no command imports another command file (shared helpers live in cli/<area>/)', () => {
    expect(commandFiles.length).toBeGreaterThan(20)
    for (const file of commandFiles) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map((match) => match[1]!)
      for (const specifier of imports) {
        const target = relative(COMMANDS, join(file, '..', specifier))
        expect(target.startsWith('..'), `${relative(REPO_ROOT, file)} imports ${specifier}`).toBe(true)
      }
    }
  })

  it('commands talk to their IO, never to the process', () => {
    for (const file of commandFiles) {
      expect(readFileSync(file, 'utf8'), relative(REPO_ROOT, file)).not.toMatch(/process\.(stdout|stderr|exitCode|exit\(|env|cwd\(|once\(|on\()/)
    }
  })
})

describe('cli/bin.ts', () => {
  it('loads no package, no command, no manifest and not citty before it knows what to run (svc --version)', () => {
    const reached = new Set<string>()
    const packages = new Set<string>()
    const visit = (file: string) => {
      if (reached.has(file)) return
      reached.add(file)
      // Static imports only: `import type` is erased, `import()` waits until it runs.
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^(?:import|export) (?!type )[^;]*?from '([^']+)'/gm)) {
        if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!))
        else packages.add(specifier!)
      }
    }
    visit(join(REPO_ROOT, 'cli', 'bin.ts'))
    expect([...packages].filter((name) => !name.startsWith('node:'))).toEqual([])
    const files = [...reached].map((file) => relative(join(REPO_ROOT, 'cli'), file))
    expect(files).toContain('main.ts')
    expect(files.filter((file) => file.startsWith('command/') || file.startsWith('commands/'))).toEqual([])
  })
})

