import { defineCommand } from 'citty'
import type { TraceRecord } from '../../../framework/trace/index.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { printJson } from '../../output/print.ts'
import { findProject } from '../../project/project.ts'
import { findTrace } from '../../trace/find-trace.ts'
import { openProjectTraceStore } from '../../trace/open-store.ts'
import { replayArgs, setsFrom } from '../../trace/run-replay.ts'
import { analyse, printWhy } from '../../trace/why-command.ts'

export default defineCommand({
  args: {
    method: { type: 'positional', required: true, description: 'HTTP method' },
    path: { type: 'positional', required: true, description: 'Request path (/api/v1/posts/abc)' },
    ...cwdArg,
    ...jsonArg,
    id: { type: 'string', description: 'Analyse this trace (default: the latest trace of this method and path)', valueHint: 'trace id' },
    fix: { type: 'boolean', description: 'Replay the trace against the current code and show whether it still fails', default: false },
    ...replayArgs,
  },
  async run({ args, rawArgs }) {
    const project = findProject(args.cwd)
    const method = args.method.toUpperCase()
    const [path, query] = args.path.split('?') as [string, string | undefined]
    const store = await openProjectTraceStore(project)
    let record: TraceRecord | undefined
    try {
      if (args.id) record = await findTrace(store, args.id)
      else {
        const rows = await store.search({ method, path, limit: 50 })
        const exact = rows.find((row) => row.path === path)
        record = exact === undefined ? undefined : await store.get(exact.trace_id)
        if (record !== undefined && query !== undefined && record.query !== query) {
          const withQuery = (await store.records({ method, path, limit: 50 })).find((r) => r.path === path && r.query === query)
          record = withQuery ?? record
        }
      }
    } finally {
      store.close()
    }
    const json = await analyse(project, record?.method ?? method, record?.path ?? path, record, { ...args, sets: setsFrom(rawArgs) })
    if (args.json) return printJson(json)
    printWhy(json)
  },
})
