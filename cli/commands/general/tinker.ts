import { join } from 'node:path'
import { defineCommand } from '../../command/define.ts'
import { cwdArg } from '../../output/args.ts'
import { colors, printNote } from '../../output/print.ts'
import { loadApp } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { tinkerScope } from '../../tinker/context.ts'
import { runRepl } from '../../tinker/repl.ts'

export default defineCommand({
  meta: { name: 'tinker', group: 'General', description: 'A REPL with the app, its database, models and config loaded (await works)' },
  args: {
    ...cwdArg,
  },
  async run({ args, io }) {
    const project = projectFor(io, args.cwd)
    const loaded = await loadApp(project, { trace: false })
    try {
      const scope = await tinkerScope(project, loaded)
      const color = colors(io, io.stderr)
      const width = Math.max(...scope.described.map(([name]) => name.length))
      printNote(io, `${color.bold('svc tinker')} (${loaded.config.env}): ${color.dim('.exit or Ctrl-D to leave, .help for the REPL commands')}`)
      for (const [name, description] of scope.described) printNote(io, `  ${color.green(name.padEnd(width))}  ${description}`)
      await runRepl(io, { scope, historyFile: join(project.storageDir, 'tinker_history'), colors: colors(io).bold('x') !== 'x' })
    } finally {
      await loaded.close()
    }
  },
})
