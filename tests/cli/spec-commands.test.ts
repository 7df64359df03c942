/**
 * The spec's command set (tests/cli/spec-commands.ts, from SPEC.md's tables):
 * `svc list --json` names every command and alias of it, except those in
 * PENDING below: commands other engineers are still building. A spec command
 * that is neither listed nor pending fails; so does a pending one that is
 * built (take it off the list). Once PENDING is empty, the spec's count holds
 * too: at least 91 names, aliases included.
 */
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/cli.ts'
import { svcJson } from '../helpers/run-svc.ts'
import { SPEC_ALIASES, SPEC_COMMAND_COUNT, SPEC_COMMANDS } from './spec-commands.ts'

/** Not built yet. The lead empties this list as the other issues land (13: openapi, 14: queues, mail, idempotency, scheduler). */
const PENDING = new Set<string>([])

describe('the spec command set', () => {
  it('svc list --json names every command and alias of the spec that is not pending', async () => {
    const { commands } = await svcJson<{ commands: Array<{ name: string; aliases: string[] }> }>(['list'], { cwd: REPO_ROOT })
    // A spec command may be built as another command's alias (frankenphp:serve runs serve:prod).
    const names = new Set(commands.flatMap((command) => [command.name, ...command.aliases]))
    const spec = Object.values(SPEC_COMMANDS).flat()

    const missing = spec.filter((name) => !names.has(name) && !PENDING.has(name))
    expect(missing, 'spec commands svc does not have (build them, or add them to PENDING with the issue that builds them)').toEqual([])
    const built = [...PENDING].filter((name) => names.has(name))
    expect(built, 'built now: take them off PENDING').toEqual([])
    const unknown = [...PENDING].filter((name) => !spec.includes(name))
    expect(unknown, 'PENDING names commands the spec does not have').toEqual([])

    for (const [alias, command] of Object.entries(SPEC_ALIASES)) {
      if (PENDING.has(command)) continue
      expect(commands.find((entry) => entry.name === command)?.aliases, `${alias} runs ${command}`).toContain(alias)
    }

    if (PENDING.size === 0) {
      const count = commands.reduce((sum, command) => sum + 1 + command.aliases.length, 0)
      expect(count, `the spec's ${SPEC_COMMAND_COUNT} commands`).toBeGreaterThanOrEqual(SPEC_COMMAND_COUNT)
    }
  })

  it('the checked-in list is the spec: 78 commands and 3 aliases, none twice', () => {
    const spec = Object.values(SPEC_COMMANDS).flat()
    expect(new Set(spec).size).toBe(spec.length)
    expect(spec).toHaveLength(78)
    expect(Object.keys(SPEC_ALIASES)).toEqual(['t', 'replay', 'why'])
  })
})
