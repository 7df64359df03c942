import { defineCommand } from '../../command/define.ts'
import { cwdArg } from '../../output/args.ts'
import { printNote } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { findVitest, runTests, testArgs, vitestNote } from '../../testing/vitest.ts'

export default defineCommand({
  meta: { name: 'test', group: 'Testing', description: "Run the app's tests (vitest); exits non-zero when one fails" },
  args: {
    ...testArgs,
    ...cwdArg,
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    const vitest = findVitest(project)
    const note = vitestNote(vitest)
    if (note !== undefined) printNote(io, note)
    io.exitCode = await runTests(io, project, vitest, { ...args, verbose: false, watch: false, stopOnFailure: false })
  },
})
