/**
 * A svc command is a citty command, run by citty's runCommand
 * (cli/command/run.ts): svc checks the line first, citty parses it and runs
 * setup, run and cleanup, and the command gets svc's context (typed values,
 * its IO) in each of them.
 */
import { parseArgs, runCommand } from 'citty'
import { describe, expect, it } from 'vitest'
import { defineCommand } from '../../cli/command/define.ts'
import { runCommandLine } from '../../cli/command/run.ts'
import { CliError } from '../../cli/output/cli-error.ts'
import { bufferIO } from '../../cli/output/io.ts'

function recordingCommand(options: { fail?: boolean } = {}) {
  const steps: string[] = []
  const contexts = new Set<object>()
  const command = defineCommand({
    meta: { name: 'demo:run', group: 'Test', description: 'A command that records its lifecycle', alias: ['demo'] },
    args: {
      target: { type: 'positional', description: 'What to work on' },
      times: { type: 'number', description: 'How often', integer: true, min: 1, default: 1 },
      slow: { type: 'number', description: 'Threshold', valueOptional: true },
      tag: { type: 'string', description: 'A tag', multiple: true },
      loud: { type: 'boolean', description: 'Shout' },
    },
    setup(context) {
      contexts.add(context)
      steps.push(`setup ${context.args.target}`)
    },
    run(context) {
      contexts.add(context)
      const { args, io } = context
      steps.push(`run ${args.target} ${args.times} ${String(args.slow)} [${args.tag.join(',')}] ${args.loud}`)
      io.stdout.write('ran\n')
      if (options.fail) throw new CliError('E_DEMO', 'it failed')
    },
    cleanup(context) {
      contexts.add(context)
      steps.push('cleanup')
    },
  })
  return { command, steps, contexts }
}

const io = () => bufferIO({ cwd: process.cwd() })

describe('a svc command run through citty', () => {
  it('is a citty command: its meta (with alias), citty argument declarations, and svc\'s beside them', () => {
    const { command } = recordingCommand()
    expect(command.meta).toMatchObject({ name: 'demo:run', group: 'Test', alias: ['demo'] })
    expect(command.args.times).toEqual({ type: 'string', description: 'How often', default: '1' }) // citty has no number type
    expect(command.svcArgs.times).toMatchObject({ type: 'number', integer: true, min: 1 })
    // citty's own parser reads its declarations
    expect(parseArgs(['x', '--times', '3', '--loud'], command.args)).toMatchObject({ target: 'x', times: '3', loud: true })
  })

  it('setup, run and cleanup in order, one svc context for all three, typed values and the IO', async () => {
    const { command, steps, contexts } = recordingCommand()
    const output = io()
    await runCommandLine(command, ['x', '--slow', '--times', '2', '--tag', 'a', '--tag=b', '--loud'], output)
    expect(steps).toEqual(['setup x', 'run x 2 true [a,b] true', 'cleanup'])
    expect(contexts.size).toBe(1)
    expect(output.output.stdout).toBe('ran\n')
  })

  it('cleanup runs when run fails, and the failure reaches the caller', async () => {
    const { command, steps } = recordingCommand({ fail: true })
    await expect(runCommandLine(command, ['x'], io())).rejects.toMatchObject({ code: 'E_DEMO' })
    expect(steps).toEqual(['setup x', 'run x 1 undefined [] false', 'cleanup'])
  })

  it('a bad command line fails before setup', async () => {
    const { command, steps } = recordingCommand()
    await expect(runCommandLine(command, ['x', '--tims=2'], io())).rejects.toMatchObject({ code: 'E_UNKNOWN_OPTION' })
    await expect(runCommandLine(command, ['x', '--times=0'], io())).rejects.toMatchObject({ code: 'E_BAD_OPTION' })
    await expect(runCommandLine(command, [], io())).rejects.toMatchObject({ code: 'E_BAD_ARGUMENTS' })
    expect(steps).toEqual([])
  })

  it('run by citty without svc\'s check (no IO in its context): a clear error, not a half-run command', async () => {
    const { command, steps } = recordingCommand()
    await expect(runCommand(command, { rawArgs: ['x'] })).rejects.toThrow(/runs through runCommandLine/)
    expect(steps).toEqual([])
  })
})
