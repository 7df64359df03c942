import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { findVitest, runTests, testArgs, vitestNote } from '../../testing/vitest.ts'

export default defineCommand({
  meta: { name: 'test', group: 'Testing', description: "Run the app's tests (vitest); exits non-zero when one fails", json: ['TestRunJson'] },
  args: {
    ...testArgs,
    ...cwdArg,
    ...jsonArg,
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const vitest = findVitest(project)
    const note = vitestNote(vitest)
    if (note !== undefined) printNote(io, note)
    const run = await runTests(io, project, vitest, { ...args, verbose: false, watch: false, stopOnFailure: false, json: args.json })
    io.exitCode = run.exitCode
    if (run.json !== undefined) print(run.json)
  },
})
