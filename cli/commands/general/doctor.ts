import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine } from '../../output/print.ts'
import { runDoctor } from '../../project/doctor.ts'
import { projectFor } from '../../project/project.ts'

export default defineCommand({
  meta: { name: 'doctor', group: 'Deployment', description: 'Check the project\'s health: Node, settings, secrets, database, migrations, storage, caches, traces, HTTPS', json: ['DoctorJson'] },
  args: {
    ...cwdArg,
    ...jsonArg,
    prod: { type: 'boolean', description: 'Check as for production (also when APP_ENV=production)' },
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const { production, checks } = await runDoctor(project, args.prod)
    const summary = { ok: 0, warn: 0, fail: 0 }
    for (const check of checks) summary[check.status] += 1
    if (summary.fail > 0) io.exitCode = 1
    if (args.json) return json({ production, ok: summary.fail === 0, summary, checks })
    const color = colors(io)
    const mark = { ok: color.green('ok  '), warn: color.yellow('warn'), fail: color.red('fail') }
    const width = Math.max(...checks.map((check) => check.name.length))
    for (const check of checks) {
      printLine(io, `${mark[check.status]}  ${check.name.padEnd(width)}  ${check.message}`)
      if (check.fix !== null) printLine(io, `      ${' '.repeat(width)}  ${color.dim(`fix: ${check.fix}`)}`)
    }
    printLine(io, `${summary.ok} ok, ${summary.warn} warning${summary.warn === 1 ? '' : 's'}, ${summary.fail} failure${summary.fail === 1 ? '' : 's'}${production ? ' (production checks)' : ''}.`)
  },
})
