/** Finds one trace by id, or by the start of an id (as long as it is unambiguous). */
import type { TraceRecord, TraceStore } from '../../framework/trace/index.ts'
import { CliError } from '../output/cli-error.ts'
import type { Project } from '../project/project.ts'
import { noTracesYet, openExistingTraceStore } from './open-store.ts'

/** The shortest start of an id that is looked up (docs/traces.md, "Commands"). */
const SHORTEST_ID_START = 6

export async function findTrace(store: TraceStore, id: string): Promise<TraceRecord> {
  const exact = await store.get(id)
  if (exact !== undefined) return exact
  if (id.length < SHORTEST_ID_START) {
    // Said as it is: "No trace with id" was false when traces started with it.
    throw new CliError('E_TRACE_NOT_FOUND', `No trace with id "${id}", and a shortened id needs at least ${SHORTEST_ID_START} characters`, {
      hint: 'give more of the id (svc trace:list prints them whole)',
    })
  }
  const matches = await store.idsStartingWith(id, 2)
  if (matches.length === 1) return (await store.get(matches[0]!))!
  if (matches.length > 1) {
    throw new CliError('E_TRACE_AMBIGUOUS', `More than one trace id starts with "${id}"`, { hint: 'give more characters of the id' })
  }
  throw new CliError('E_TRACE_NOT_FOUND', `No trace with id "${id}"`, {
    hint: 'svc trace:list shows recent ones (traces older than TRACE_RETENTION_DAYS are pruned)',
  })
}

/**
 * An id given as "" (`svc log:export "$ID"` with $ID unset) is refused:
 * read as no id, it showed a search, and log:export exported every trace.
 */
export function refuseEmptyId(id: string | undefined, command: string): void {
  if (id !== '') return
  throw new CliError('E_BAD_ARGUMENTS', 'The trace id is empty', {
    hint: `give an id (svc trace:list prints them), or leave it out to select traces with the filters (svc ${command} --status 5xx)`,
  })
}

/** Opens the project's trace store just to read one trace (never creating it: see openTraceStoreToRead). */
export async function readProjectTrace(project: Project, id: string): Promise<TraceRecord> {
  const store = await openExistingTraceStore(project)
  if (store === undefined) throw new CliError('E_TRACE_NOT_FOUND', `No trace with id "${id}"`, { hint: noTracesYet(project) })
  try {
    return await findTrace(store, id)
  } finally {
    store.close()
  }
}
