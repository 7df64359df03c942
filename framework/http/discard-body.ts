/**
 * What to do with the rest of a request body that will not be used (a 413's,
 * or the part the tracer does not keep): read it and drop it, never cancel or
 * abandon it. On Node a body stream left half-read stops its socket being
 * read: the client, still sending, could not finish, the adapter closed the
 * connection under it, and the answer already sent was often lost with it (a
 * 401 or 413 for a 500 kB body came back to fetch as "other side closed"
 * about half the time). Read to its end, the body lets the client finish and
 * read its answer, and the connection serve the next request. How long that
 * may take is the adapter's to bound (on Node, @hono/node-server closes a
 * connection whose unread body is still arriving 500 ms after its answer).
 */

/** Beyond this many bytes the rest is cancelled after all: as @hono/node-server's own drain, 64 MiB. */
export const MAX_DISCARDED_BYTES = 64 * 1024 * 1024

/** How a drain ended: the body's end, the budget (the rest cancelled), or a failed read (the client gone). */
export type DrainEnd = 'ended' | 'capped' | 'failed'

/** A rest being read and dropped: what it counted so far, and how it ends. */
export interface DrainedRest {
  /** Bytes read and dropped so far: the tracer counts them into the body's size. */
  readonly bytes: number
  /** The end once it came; undefined while the drain is still reading. */
  readonly end: DrainEnd | undefined
  /** Settles (never rejects) when the drain stops. */
  readonly done: Promise<DrainEnd>
}

/** Reads what is left of `reader`'s stream and drops it, in the background, counting it; a failed read (the client gone) ends it. */
export function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, budget = MAX_DISCARDED_BYTES): DrainedRest {
  const rest: { bytes: number; end: DrainEnd | undefined; done: Promise<DrainEnd> } = { bytes: 0, end: undefined, done: undefined! }
  rest.done = (async (): Promise<DrainEnd> => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return 'ended'
      rest.bytes += value.byteLength
      if (rest.bytes > budget) {
        await reader.cancel()
        return 'capped'
      }
    }
  })()
    .catch((): DrainEnd => (rest.bytes > budget ? 'capped' : 'failed'))
    .then((end) => (rest.end = end))
  return rest
}
