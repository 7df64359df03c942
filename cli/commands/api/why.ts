import type { TraceRecord } from '../../../framework/trace/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { projectFor } from '../../project/project.ts'
import { findTrace } from '../../trace/find-trace.ts'
import { openTraceStoreToRead } from '../../trace/open-store.ts'
import { readReplayKey, replayOf } from '../../trace/replay-marker.ts'
import { requestTarget } from '../../trace/request-target.ts'
import { printSetNotes, replayArgs } from '../../trace/run-replay.ts'
import { analyse, printWhy } from '../../trace/why-command.ts'

export default defineCommand({
  meta: {
    name: 'api:why',
    group: 'Debug and logs',
    description: 'Why a request fails: which route matches (and why others do not), which middleware refused it',
    json: ['WhyJson'],
  },
  args: {
    method: { type: 'positional', description: 'HTTP method', valueHint: 'GET' },
    path: { type: 'positional', description: 'Request path (/api/v1/posts/abc)', valueHint: 'path' },
    ...cwdArg,
    ...jsonArg,
    id: { type: 'string', description: 'Analyse this trace (default: the latest trace of this method and path that is not a replay)', valueHint: 'trace id' },
    fix: { type: 'boolean', description: 'Replay the trace against the current code and show whether it still fails' },
    ...replayArgs,
  },
  async run({ args, io, json }) {
    const project = projectFor(io, args.cwd)
    const method = args.method.toUpperCase()
    const { path, query } = requestTarget(args.path)
    const store = await openTraceStoreToRead(io, project)
    let record: TraceRecord | undefined
    try {
      if (args.id) {
        record = await findTrace(store, args.id)
        refuseOtherRequest(record, method, path, query)
      } else {
        const traces = (await store.records({ method, path, limit: 50 })).filter((r) => r.path === path)
        // svc's replays of the request are passed over, as `why` does: the request made is the one explained.
        const replayKey = readReplayKey(project)
        const own = traces.filter((r) => replayOf(r, replayKey) === null)
        const candidates = own.length > 0 ? own : traces
        record = (query === undefined ? undefined : candidates.find((r) => r.query === query)) ?? candidates[0]
      }
    } finally {
      store.close()
    }
    if (record !== undefined) printSetNotes(io, record, args.set)
    const result = await analyse(project, record?.method ?? method, record?.path ?? path, record, { ...args, sets: args.set })
    if (args.json) return json(result)
    printWhy(io, result, args.as)
  },
})

/**
 * `--id` names a trace of another request than the one given: analysing it
 * silently would explain the wrong request (the routing of one, the failure
 * of the other). The query string is compared only when one is given.
 */
function refuseOtherRequest(record: TraceRecord, method: string, path: string, query: string | undefined): void {
  if (record.method === method && record.path === path && (query === undefined || record.query === query)) return
  const traced = `${record.method} ${record.path}${query !== undefined && record.query !== '' ? `?${record.query}` : ''}`
  throw new CliError('E_BAD_OPTION', `--id ${record.trace_id} is a trace of ${traced}, not ${method} ${path}${query !== undefined ? `?${query}` : ''}`, {
    hint: `svc api:why ${record.method} ${record.path}${record.query !== '' ? `?${record.query}` : ''} --id ${record.trace_id}, or leave out --id to analyse the latest trace of ${method} ${path}`,
  })
}
