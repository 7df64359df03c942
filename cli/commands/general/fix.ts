import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { readProjectTrace } from '../../trace/find-trace.ts'
import { diffText, replayArgs, runReplay } from '../../trace/run-replay.ts'
import { explainFailure } from '../../trace/why.ts'

const { test: _test, format: _format, diff: _diff, ...fixArgs } = replayArgs

/** Exit codes: 0 fixed (now below 400), 1 still failing, 2 not sent (production dry run). */
export default defineCommand({
  meta: {
    name: 'fix',
    group: 'Debug and logs',
    description: 'Replay a failed trace against the current code; the exit code says whether it now succeeds',
    json: ['FixJson'],
  },
  args: {
    id: { type: 'positional', description: 'Trace id of a failed request (or its start)', valueHint: 'trace id' },
    ...cwdArg,
    ...jsonArg,
    ...fixArgs,
  },
  async run({ args, io, json: print }) {
    const project = projectFor(io, args.cwd)
    const record = await readProjectTrace(project, args.id)
    const replay = await runReplay(project, record, { ...args, sets: args.set, diff: true })
    const current = replay.response?.status ?? null
    const json = {
      trace_id: record.trace_id,
      fixed: current !== null && current < 400,
      recorded_status: record.status_code,
      current_status: current,
      dry_run: replay.dry_run,
      diff: replay.diff,
      failure: explainFailure(record, null),
    }
    io.exitCode = json.fixed ? 0 : json.dry_run ? 2 : 1
    if (args.json) return print(json)
    const color = colors(io)
    if (json.dry_run) return printLine(io, color.yellow('Dry run (APP_ENV=production): not sent. --force replays it, with its side effects.'))
    if (replay.redacted.length > 0) printLine(io, color.dim(`Redacted in the trace and not replaced: ${replay.redacted.join(', ')} (use --as=<email> / --set)`))
    printLine(
      io,
      json.fixed
        ? color.green(`Fixed: ${record.method} ${record.path} answered ${record.status_code} when recorded, ${current} now.`)
        : color.red(`Still failing: ${record.method} ${record.path} answered ${record.status_code} when recorded, ${current} now.`),
    )
    if (json.diff !== null) printLine(io, diffText(json.diff, color))
  },
})
