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
 */

export const SUPERVISED_ENV = 'SVC_SUPERVISED'
export const DRAIN_MESSAGE = 'svc:drain'
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
