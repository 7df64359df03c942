/** docs/cli.md's command table is generated from the commands' metadata and must be current. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadManifest } from '../../cli/command/manifest.ts'
import { CLI_DOC, renderCommandTable, withCommandTable } from '../../scripts/docs-cli.ts'

describe('docs/cli.md', () => {
  it('holds the command table generated from every command (npm run docs:cli)', async () => {
    const manifest = await loadManifest()
    const document = readFileSync(CLI_DOC, 'utf8')
    expect(document, 'docs/cli.md is stale: run npm run docs:cli').toBe(withCommandTable(document, renderCommandTable(manifest)))
    for (const command of manifest.commands) expect(document).toContain(`| \`${command.name}\``)
  })

  it('no description repeats an option name: the help and the table list the options', async () => {
    for (const command of (await loadManifest()).commands) {
      expect(command.description, command.name).not.toMatch(/--[a-z]/)
      for (const arg of command.args) expect(arg.description, `${command.name} --${arg.name}`).not.toContain(`--${arg.name}`)
    }
  })
})
