/** The header `svc replay` adds to what it sends: the id of the trace replayed, signed (replay-marker.ts), so the new trace says it is a replay. */
export const REPLAY_HEADER = 'x-svc-replay-of'
