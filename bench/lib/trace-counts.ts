/**
 * Whether a traced server kept every trace while it was measured. A server
 * whose writer falls behind drops traces (the buffer is bounded) and gets
 * faster for it: a figure bought that way is not a figure of tracing. After
 * its rounds the bench reads the counts `/health/ready` shows under
 * `checks.traces`, waits for the writer to finish, and a target whose subject
 * lost a trace is not met.
 */
import { send } from './check.ts'

/** The writer's counters as `/health/ready` shows them (docs/traces.md). */
export interface TraceCounts {
  accepted: number
  written: number
  dropped: number
  failed: number
  pending: number
}

/** Traces that were taken in or refused and will never be stored: dropped, failed, or neither written nor still pending. */
export function tracesLost(counts: TraceCounts): number {
  return counts.dropped + counts.failed + Math.max(0, counts.accepted - counts.written - counts.pending - counts.failed)
}

/** The counts out of a `/health/ready` body; undefined when it has none (a server without the traces check). */
export function traceCountsOf(body: string): TraceCounts | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  const traces = (parsed as { data?: { checks?: { traces?: Record<string, unknown> } } } | null)?.data?.checks?.traces
  if (traces === undefined || traces === null) return undefined
  const fields = ['accepted', 'written', 'dropped', 'failed', 'pending'] as const
  if (!fields.every((field) => typeof traces[field] === 'number')) return undefined
  return Object.fromEntries(fields.map((field) => [field, traces[field]])) as unknown as TraceCounts
}

/** Reads the counts, waiting (up to `waitMs`) for the traces still pending to be written. */
export async function readTraceCounts(url: string, headers: Record<string, string>, waitMs = 10_000): Promise<TraceCounts | undefined> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const answer = await send(url, { name: 'health', server: { factory: 'none' }, path: '/health/ready', expect: { status: 200 } }, headers)
    const counts = traceCountsOf(answer.text)
    if (counts === undefined || counts.pending === 0 || Date.now() >= deadline) return counts
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
