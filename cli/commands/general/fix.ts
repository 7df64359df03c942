import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { colors, printLine, type Colors } from '../../output/print.ts'
import { projectFor } from '../../project/project.ts'
import { readProjectTrace } from '../../trace/find-trace.ts'
import { diffText, printCredentialNotes, printSetNotes, replayArgs, runReplay } from '../../trace/run-replay.ts'
import { explainFailure } from '../../trace/why.ts'

const { test: _test, format: _format, diff: _diff, ...fixArgs } = replayArgs

/** Exit codes: 0 when the replay now answers below 400 (fixed, or a trace that was no failure), 1 at 400 and above, 2 not sent (production dry run). */
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
    printSetNotes(io, record, args.set)
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
    printCredentialNotes(io, replay, args.as)
    printLine(io, outcome(`${record.method} ${record.path}`, record.status_code, current!, color))
    if (json.diff !== null) printLine(io, diffText(json.diff, color))
  },
})

/** The verdict, worded for what the trace was: a failure (fixed, still failing) or not (it fails now, it still succeeds). */
function outcome(request: string, recorded: number, current: number, color: Colors): string {
  const statuses = `${request} answered ${recorded} when recorded, ${current} now.`
  if (recorded >= 400) return current < 400 ? color.green(`Fixed: ${statuses}`) : color.red(`Still failing: ${statuses}`)
  return current < 400 ? color.green(`Still succeeds: ${statuses.slice(0, -1)} (the trace was no failure).`) : color.red(`Fails now: ${statuses}`)
}
