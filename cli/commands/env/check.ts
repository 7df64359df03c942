import { existsSync } from 'node:fs'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine } from '../../output/print.ts'
import { checkEnvironment } from '../../project/env-check.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'env:check', group: 'Configuration', description: 'Check .env against the settings the app reads: every problem, with its fix', json: ['EnvCheckJson'] },
  args: { ...cwdArg, ...jsonArg },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const problems = checkEnvironment(project)
    const ok = !problems.some((problem) => problem.level === 'error')
    if (!ok) io.exitCode = 1
    if (args.json) return json({ file: project.envFile, exists: existsSync(project.envFile), ok, problems })
    const color = colors(io)
    if (problems.length === 0) return printLine(io, `${color.green('ok')} ${project.envFile}: every setting is valid.`)
    for (const problem of problems) {
      const level = problem.level === 'error' ? color.red('error') : color.yellow('warning')
      printLine(io, `${level} ${color.bold(problem.variable)}: ${problem.message}`)
      printLine(io, `  fix: ${problem.fix}`)
    }
    const errors = problems.filter((problem) => problem.level === 'error').length
    printLine(io, `${errors} error${errors === 1 ? '' : 's'}, ${problems.length - errors} warning${problems.length - errors === 1 ? '' : 's'} in ${project.envFile}.`)
  },
})
