/**
 * What every runtime adapter's `serve` returns and how it stops: once, on
 * `close()` or the first SIGINT/SIGTERM. The server stops accepting and lets
 * in-flight requests finish, then `onClose` runs (where the app flushes its
 * traces and closes its databases), then, for a signal, the process exits.
 * The runtime-specific parts (the server's own stop, signal listeners, exit)
 * are passed in by the adapter, so this file uses no runtime API.
 */
export interface ServeOptions {
  /** Default 8080; 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Runs once every in-flight request has finished (flush traces, close databases). */
  onClose?: () => Promise<void> | void
  /** Stop on SIGINT/SIGTERM, then exit (default true). */
  signals?: boolean
}

export interface RunningServer {
  url: string
  port: number
  host: string
  /** Stops accepting, waits for in-flight requests, then runs `onClose`. */
  close(): Promise<void>
}

export function runningServer(host: string, port: number, stop: () => Promise<void>, onClose?: () => Promise<void> | void): RunningServer {
  let closing: Promise<void> | undefined
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    host,
    close() {
      closing ??= stop().then(() => onClose?.())
      return closing
    },
  }
}

export type StopSignal = 'SIGINT' | 'SIGTERM'

/** On the first SIGINT or SIGTERM: close (in-flight requests, then `onClose`), then exit 0 (1 if closing failed). */
export function stopOnSignals(
  server: RunningServer,
  listen: (signal: StopSignal, stop: () => void) => void,
  exit: (code: number) => void,
): void {
  const stop = () => {
    server.close().then(
      () => exit(0),
      (error: unknown) => {
        console.error(`svc: stopping failed: ${error instanceof Error ? error.message : String(error)}`)
        exit(1)
      },
    )
  }
  listen('SIGINT', stop)
  listen('SIGTERM', stop)
}
