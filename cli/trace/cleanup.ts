/**
 * `log:cleanup`: deletes the traces that began more than N days ago, in
 * short transactions (see `TraceStore.prune`), and reports what it deleted
 * and what remains, both counted by the store (never derived from a count
 * taken before: the server may write meanwhile).
 */
import type { TraceStore } from '../../framework/trace/index.ts'
import type { CleanupJson } from '../contract/traces.ts'

export async function cleanupTraces(store: TraceStore, options: { days: number; dryRun: boolean; now?: number }): Promise<CleanupJson> {
  const cutoff = (options.now ?? Date.now()) - options.days * 86_400_000
  if (options.dryRun) {
    const deleted = await store.countOlderThan(cutoff)
    return { days: options.days, dry_run: true, deleted, remaining: Math.max(0, (await store.count()) - deleted) }
  }
  const deleted = await store.prune({ olderThanMs: cutoff })
  return { days: options.days, dry_run: false, deleted, remaining: await store.count() }
}
