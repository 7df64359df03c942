import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { findVitest, runTests, testArgs, vitestNote } from '../../testing/vitest.ts'

export default defineCommand({
  meta: { name: 'test:run', group: 'Testing', description: "Run the app's tests with one line per test; can watch for changes", json: ['TestRunJson'] },
  args: {
    ...testArgs,
    ...cwdArg,
    ...jsonArg,
    watch: { type: 'boolean', description: 'Run again when a file changes, until stopped (Ctrl-C)' },
    'stop-on-failure': { type: 'boolean', description: 'Stop at the first failing test' },
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const vitest = findVitest(project)
    const note = vitestNote(vitest)
    if (note !== undefined) printNote(io, note)
    const run = await runTests(io, project, vitest, { ...args, verbose: true, stopOnFailure: args['stop-on-failure'], json: args.json })
    io.exitCode = run.exitCode
    if (run.json !== undefined) print(run.json)
  },
})
