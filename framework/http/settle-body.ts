/**
 * A request body left unread when the answer is ready, on runtimes that take
 * over its rest once the handler returns (Deno, Bun). Deno keeps a keep-alive
 * connection only when the body was read to its end or cancelled by then:
 * a body still open is answered with `Connection: close` and the connection
 * dropped, even when svc read it to its end a moment later (a 401 to a POST,
 * a 413: the client's next request on that connection was lost). Cancelled,
 * Deno reads and drops the rest itself and the connection serves the next
 * request. Bun drains the rest itself either way, but a read of it after the
 * answer fails, so the tracer recorded a body still arriving as no body.
 *
 * So the adapter hands the app a copy of the request whose body it can end,
 * and before handing the answer on: a body someone is still reading (the
 * tracer, the 413's drain) may end within BODY_END_WAIT_MS; what has not
 * ended then is cancelled (the reader gets an error: the trace says
 * `incomplete`). A body nobody reads is cancelled at once. Node keeps
 * reading after the answer instead (discard-body.ts, node/serve.ts).
 */

/**
 * How long an answer waits for a body being read to end: long enough for
 * one already on its way (a 500 kB POST arrives in a few ms on a LAN), short
 * enough that an early answer stays early for a client that waits for it
 * before sending the rest.
 */
export const BODY_END_WAIT_MS = 100

/** Why a body read after the answer stops (the tracer records what came before, incomplete). */
export class BodyEndedByAnswerError extends Error {
  constructor() {
    super('the answer went out before the request body ended: the runtime drops the rest')
    this.name = 'BodyEndedByAnswerError'
  }
}

/**
 * Calls `handle` with `request` (its body made endable, when it has one) and
 * settles the body before the answer is handed on. GET and HEAD pass through
 * untouched, synchronously. `followSignal: false` gives the copy no `signal`
 * (Deno warns, once, whenever a request's legacy signal is read, and its
 * adapter says when the client went away through `completed` instead).
 */
export function answerSettlingBody(
  request: Request,
  handle: (request: Request) => Response | Promise<Response>,
  { followSignal = true }: { followSignal?: boolean } = {},
): Response | Promise<Response> {
  if (request.method === 'GET' || request.method === 'HEAD') return handle(request)
  const source = request.body
  if (source === null) return handle(request)
  const body = new EndableBody(source)
  // Built from its parts without the signal: Deno's Request constructor reads the input's signal even when told not to follow it.
  const init = { body: body.stream, duplex: 'half' } as RequestInit
  const copy = followSignal ? new Request(request, init) : new Request(request.url, { ...init, method: request.method, headers: request.headers })
  const answer = handle(copy)
  return Promise.resolve(answer).then(async (response) => {
    await body.settle()
    return response
  })
}

class EndableBody {
  readonly stream: ReadableStream<Uint8Array>
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private state: 'open' | 'ended' | 'cut' = 'open'
  private readonly ended: Promise<void>
  private markEnded!: () => void

  constructor(private readonly source: ReadableStream<Uint8Array>) {
    this.ended = new Promise<void>((resolve) => (this.markEnded = resolve))
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (this.controller = controller),
        pull: (controller) => this.pull(controller),
        // The app cancelled it itself: the runtime gets the cancel, as it wants.
        cancel: (reason) => {
          this.end()
          return (this.reader ?? this.source).cancel(reason)
        },
      },
      { highWaterMark: 0 },
    )
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    this.reader ??= this.source.getReader()
    try {
      const { done, value } = await this.reader.read()
      if (this.state === 'cut') return
      if (done) {
        this.end()
        controller.close()
      } else controller.enqueue(value)
    } catch (error) {
      if (this.state === 'cut') return
      this.end()
      controller.error(error)
    }
  }

  private end(): void {
    if (this.state === 'open') this.state = 'ended'
    this.markEnded()
  }

  /** Before the answer goes out: lets a body being read end (bounded), then cancels what is left. */
  async settle(): Promise<void> {
    if (this.state !== 'open') return
    if (this.stream.locked) {
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([this.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, BODY_END_WAIT_MS)))])
      clearTimeout(timer)
      if (this.state !== 'open') return
    }
    this.state = 'cut'
    this.markEnded()
    this.controller.error(new BodyEndedByAnswerError())
    void (this.reader ?? this.source).cancel().catch(() => {})
  }
}
