/**
 * The request `svc why` (debug:last) explains: the latest failed one that is
 * not svc's own replay. Run right after `svc replay` or `svc fix`, the latest
 * failure is the replay's: explaining it instead of the request the developer
 * made read as if that request had failed again (a replay answers against the
 * current code, with another token and database). A replay of the request
 * explained that failed too is said beside it.
 */
import type { TraceRecord, TraceStore } from '../../framework/trace/index.ts'
import { replayOf, type ReplayKey } from './replay-marker.ts'

/** How far back to look past replays: a session of replays is far shorter. */
const LOOK_BACK = 200

export interface LastFailure {
  record: TraceRecord
  /** The newest failed replay of `record`, undefined when none is among the recent failures. */
  failedReplay: TraceRecord | undefined
}

export async function lastFailure(store: Pick<TraceStore, 'records'>, replayKey: ReplayKey): Promise<LastFailure | undefined> {
  const failures = await store.records({ status: '4xx,5xx', limit: LOOK_BACK })
  const newestReplayOf = new Map<string, TraceRecord>()
  for (const record of failures) {
    const original = replayOf(record, replayKey)
    if (original === null) return { record, failedReplay: newestReplayOf.get(record.trace_id) }
    if (!newestReplayOf.has(original)) newestReplayOf.set(original, record)
  }
  // Only replays failed lately: the newest of them is all there is to explain.
  return failures[0] === undefined ? undefined : { record: failures[0], failedReplay: undefined }
}
