import type { TraceRecord } from '../../../framework/trace/index.ts'
import { defineCommand } from '../../command/define.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { loadConfig } from '../../project/load-app.ts'
import { projectFor } from '../../project/project.ts'
import { parseFilters, refuseFiltersWithId, traceFilterArgs } from '../../trace/filters.ts'
import { findTrace, refuseEmptyId } from '../../trace/find-trace.ts'
import { openTraceStoreToRead, projectTraceConfig } from '../../trace/open-store.ts'
import { postmanCollection } from '../../trace/postman.ts'

/** Prints JSON with or without --json: the export is a document either way. */
export default defineCommand({
  meta: { name: 'log:export', group: 'Debug and logs', description: 'Export traces as JSON or a Postman collection', json: ['ExportJson', 'PostmanCollectionJson'] },
  args: {
    id: { type: 'positional', required: false, description: 'Trace id; without one, export every trace the filters select', valueHint: 'trace id' },
    ...cwdArg,
    ...jsonArg,
    format: { type: 'enum', description: 'json, or postman (a Postman v2.1 collection)', options: ['json', 'postman'], default: 'json' },
    ...traceFilterArgs,
  },
  async run({ args, io, json }) {
    refuseEmptyId(args.id, 'log:export')
    const project = projectFor(io, args.cwd)
    const config = loadConfig(project)
    // With an id, the filters would select nothing: refused rather than ignored.
    if (args.id) refuseFiltersWithId(args, 'log:export')
    const filter = args.id ? undefined : parseFilters(args, projectTraceConfig(project, config).slowMs).filter
    const store = await openTraceStoreToRead(io, project, config)
    let traces: TraceRecord[]
    try {
      traces = filter === undefined ? [await findTrace(store, args.id!)] : await store.records(filter)
    } finally {
      store.close()
    }
    if (args.format === 'postman') return json(postmanCollection(traces, `svc traces (${new Date().toISOString().slice(0, 10)})`))
    json({ traces })
  },
})
