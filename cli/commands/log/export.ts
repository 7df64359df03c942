import { defineCommand } from 'citty'
import type { TraceRecord } from '../../../framework/trace/index.ts'
import type { ExportJson } from '../../contract/traces.ts'
import { cwdArg, jsonArg } from '../../output/args.ts'
import { CliError } from '../../output/cli-error.ts'
import { printJson } from '../../output/print.ts'
import { loadConfig } from '../../project/load-app.ts'
import { findProject } from '../../project/project.ts'
import { parseFilters, traceFilterArgs, type FilterArgs } from '../../trace/filters.ts'
import { findTrace } from '../../trace/find-trace.ts'
import { openProjectTraceStore, projectTraceConfig } from '../../trace/open-store.ts'
import { postmanCollection } from '../../trace/postman.ts'

export default defineCommand({
  args: {
    id: { type: 'positional', required: false, description: 'Trace id; without one, export every trace the filters select' },
    ...cwdArg,
    ...jsonArg,
    format: { type: 'string', description: 'json (default) or postman (a Postman v2.1 collection)', default: 'json', valueHint: 'json|postman' },
    ...traceFilterArgs,
  },
  async run({ args }) {
    if (args.format !== 'json' && args.format !== 'postman') {
      throw new CliError('E_BAD_OPTION', `--format takes json or postman, got "${args.format}"`)
    }
    const project = findProject(args.cwd)
    const config = loadConfig(project)
    const store = await openProjectTraceStore(project, config)
    let traces: TraceRecord[]
    try {
      if (args.id) traces = [await findTrace(store, args.id)]
      else {
        const { filter } = parseFilters(args as FilterArgs, projectTraceConfig(project, config).slowMs)
        traces = await store.records(filter)
      }
    } finally {
      store.close()
    }
    if (args.format === 'postman') return printJson(postmanCollection(traces, `svc traces (${new Date().toISOString().slice(0, 10)})`))
    const json: ExportJson = { traces }
    printJson(json)
  },
})
