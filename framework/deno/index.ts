/**
 * svc's Deno adapter: serves an app with `Deno.serve`, the peer address in
 * the typed connection info (`c.ip`, the throttle's key, the trace's `ip`),
 * and stops gracefully on SIGINT/SIGTERM: in-flight requests finish, then
 * `onClose` runs (flush the traces, close the databases there). Also opens
 * libSQL files as Deno allows (`--allow-ffi` for the driver, see
 * docs/runtimes.md for the permissions), and reads the maintenance state
 * file `svc down` writes (`maintenanceFile`, `--allow-read` for it).
 *
 * @example
 * const server = serve(app, { port: 8080, onClose: () => tracer.close() })
 */
import { createClient } from '@libsql/client'
import { CONN_INFO } from '../app/conn-info.ts'
import { readJwtKeyFilesWith } from '../auth/key-files.ts'
import type { JwtKeyMaterial } from '../auth/keys.ts'
import type { App } from '../app/create-app.ts'
import { ConfigError } from '../config/config-error.ts'
import { libsqlOpeners } from '../database/libsql-open.ts'
import { unmeasuredHeadAnswer } from '../http/response.ts'
import { answerSettlingBody } from '../http/settle-body.ts'
import { runningServer, stopOnSignals, type RunningServer, type ServeOptions } from '../app/running-server.ts'
import type { MaintenanceSource } from '../middleware/maintenance/index.ts'
import { pollMaintenanceFile, type MaintenancePollOptions } from '../middleware/maintenance/state-file.ts'

export type { MaintenancePollOptions, RunningServer, ServeOptions }

interface DenoServeInfo {
  remoteAddr: { hostname: string }
  /** Settles once the response was sent, rejects when the client went away (Deno 2). */
  completed?: Promise<void>
}
interface DenoServer {
  addr: { hostname: string; port: number }
  shutdown(): Promise<void>
}
interface DenoRuntime {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: unknown) => void },
    handler: (request: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): DenoServer
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void
  mkdir(path: string, options: { recursive: boolean }): Promise<void>
  statSync(path: string): { ino: number | null; size: number; mtime: Date | null }
  readTextFileSync(path: string): string
  readTextFile(path: string): Promise<string>
  exit(code: number): never
  env: { toObject(): Record<string, string> }
}

const deno = (): DenoRuntime => (globalThis as unknown as { Deno: DenoRuntime }).Deno

export function serve(app: Pick<App, 'fetch'>, options: ServeOptions = {}): RunningServer {
  const runtime = deno()
  const server = runtime.serve({ port: options.port ?? 8080, hostname: options.host ?? '127.0.0.1', onListen: () => {} }, (request, info) => {
    // A body still open when the answer goes out makes Deno close the connection: settled first (settle-body.ts).
    const answer = answerSettlingBody(request, (request) =>
      app.fetch(request, {
        [CONN_INFO]: {
          remoteAddress: info.remoteAddr.hostname,
          ...(info.completed === undefined ? {} : { responseDone: () => info.completed! }),
        },
      }),
      { followSignal: false },
    )
    // Deno would send `Content-Length: 0` for a body-less HEAD answer whose length svc does not know.
    return request.method === 'HEAD' ? unmeasuredHeadAnswer(answer) : answer
  })
  const running = runningServer(server.addr.hostname, server.addr.port, () => server.shutdown(), options.onClose)
  if (options.signals !== false) stopOnSignals(running, (signal, stop) => runtime.addSignalListener(signal, stop), (code) => runtime.exit(code))
  return running
}

/** The app's libSQL database (a local file, its folder created, or a server URL) and the trace store in one of its own. */
export const { openDatabase, openTraceStore } = libsqlOpeners(createClient, (folder) => deno().mkdir(folder, { recursive: true }))

/**
 * The RS256 key pair in `<storageDir>/keys/` (`svc key:generate --rs256`), for `authPlugin({ keys })`: the files
 * that exist (none is fine for HS256, or keys in JWT_PRIVATE_KEY / JWT_PUBLIC_KEY, which win). `--allow-read` for them.
 */
export function readJwtKeyFiles(storageDir: string): Promise<JwtKeyMaterial> {
  return readJwtKeyFilesWith(storageDir, async (path) => {
    try {
      return await deno().readTextFile(path)
    } catch (error) {
      if (error instanceof Error && error.name === 'NotFound') return undefined
      throw error
    }
  })
}

/** The process environment (`--allow-env`): what `resolveConfig` reads. */
export function readEnv(): Record<string, string> {
  return deno().env.toObject()
}

/**
 * Maintenance mode as `svc serve` has it: the source for
 * `createApp({ maintenance })`, polling the state file `svc down` writes
 * (at most once a second; framework/middleware/maintenance/state-file.ts).
 *
 * @example createApp({ ..., maintenance: maintenanceFile('storage/maintenance.json') })
 */
export function maintenanceFile(path: string, options: MaintenancePollOptions = {}): MaintenanceSource {
  // Looked at once now: without --allow-read for the file, every request would answer 500. Say so before serving.
  try {
    denoIdentity(path)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ConfigError('MAINTENANCE_FILE', `cannot look at ${path} (${reason})`, `run deno with --allow-read for it (--allow-read=. covers storage/maintenance.json in the project folder)`)
  }
  return pollMaintenanceFile(path, { identity: denoIdentity, read: (file) => deno().readTextFileSync(file) }, options)
}

function denoIdentity(path: string): string | undefined {
  try {
    const info = deno().statSync(path)
    return `${info.ino}:${info.size}:${info.mtime?.getTime()}`
  } catch (error) {
    // Deno.errors.NotFound: up. Anything else (no --allow-read for it) is the request's error, as on Node.
    if (error instanceof Error && error.name === 'NotFound') return undefined
    throw error
  }
}
