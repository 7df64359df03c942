/**
 * What a supervisor (`svc live`, `svc serve:prod`) and its workers (plain
 * `svc serve` processes forked with node:cluster) agree on. Imports nothing:
 * the binary reads it before it knows which command runs.
 *
 * - The supervisor sets SVC_SUPERVISED=1 in a worker's environment.
 * - A worker ignores SIGINT: Ctrl-C reaches the whole process group, and the
 *   supervisor decides (it sends SIGTERM: finish in-flight requests, stop).
 * - The IPC channel keeps a worker alive (a cluster worker's socket is the
 *   supervisor's), so the binary exits explicitly once the command returns.
 * - To hand the port over to a new worker (reload), the supervisor sends the
 *   worker the message `svc:drain`: it stops accepting, finishes in-flight
 *   requests, and lets idle keep-alive connections end on their own timeout
 *   (see `serve`'s `close({ drain })`), so no client loses a request.
 * - A worker whose server has closed sends `svc:closed` and exits once the
 *   supervisor answered `svc:bye` (`leaveCluster`, below).
 */

export const SUPERVISED_ENV = 'SVC_SUPERVISED'
export const DRAIN_MESSAGE = 'svc:drain'
/** A worker whose server has closed says so; the supervisor answers `svc:bye`. */
export const CLOSED_MESSAGE = 'svc:closed'
export const BYE_MESSAGE = 'svc:bye'
/** The abort reason of a worker asked to drain. */
export const DRAIN = 'drain'

/** Called by the binary: wires a supervised worker's stop signals; returns whether this process is one. */
export function listenAsWorker(stop: AbortController): boolean {
  if (process.env[SUPERVISED_ENV] !== '1' || process.send === undefined) return false
  process.on('SIGINT', () => {})
  process.on('message', (message) => {
    if (message === DRAIN_MESSAGE) stop.abort(DRAIN)
  })
  return true
}

/**
 * Called by the binary once a supervised worker's command has returned (its
 * server closed), before it exits. node:cluster's supervisor hands each new
 * connection to a worker and keeps the socket open until the worker answers;
 * a connection handed over just before it learnt that the server closed,
 * still unread when the worker exits, is never answered nor closed: its
 * client waits forever (seen in a reload under load). So the worker says it
 * closed and exits once the supervisor has answered: every connection handed
 * over before that answer has been read by then, and given back (the server
 * is closed), and the supervisor passes it to a worker that serves.
 */
export function leaveCluster(timeoutMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined || !process.connected) return resolve()
    const done = () => {
      clearTimeout(timer)
      process.off('message', onMessage)
      process.off('disconnect', done)
      resolve()
    }
    const onMessage = (message: unknown) => {
      if (message === BYE_MESSAGE) done()
    }
    const timer = setTimeout(done, timeoutMs)
    process.on('message', onMessage)
    process.once('disconnect', done)
    process.send(CLOSED_MESSAGE, undefined, undefined, (error: Error | null) => {
      if (error) done()
    })
  })
}
