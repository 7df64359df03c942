/**
 * svc's Bun adapter: serves an app with `Bun.serve`, the peer address
 * (`server.requestIP`) in the typed connection info (`c.ip`, the throttle's
 * key, the trace's `ip`), and stops gracefully on SIGINT/SIGTERM: in-flight
 * requests finish, then `onClose` runs (flush the traces, close the
 * databases there). Also opens libSQL files (Bun runs the native driver),
 * and reads the maintenance state file `svc down` writes (`maintenanceFile`).
 *
 * @example
 * const server = serve(app, { port: 8080, onClose: () => tracer.close() })
 */
import { createClient } from '@libsql/client'
import { CONN_INFO } from '../app/conn-info.ts'
import { readJwtKeyFilesWith } from '../auth/key-files.ts'
import type { JwtKeyMaterial } from '../auth/keys.ts'
import type { App } from '../app/create-app.ts'
import { runningServer, stopOnSignals, type RunningServer, type ServeOptions } from '../app/running-server.ts'
import { libsqlOpeners } from '../database/libsql-open.ts'
import { unmeasuredHeadAnswer } from '../http/response.ts'
import { answerSettlingBody } from '../http/settle-body.ts'
import type { MaintenanceSource } from '../middleware/maintenance/index.ts'
import { pollMaintenanceFile, type MaintenancePollOptions } from '../middleware/maintenance/state-file.ts'

export type { MaintenancePollOptions, RunningServer, ServeOptions }

interface BunServer {
  hostname: string
  port: number
  requestIP(request: Request): { address: string } | null
  /** false: in-flight requests finish first. */
  stop(closeActiveConnections?: boolean): Promise<void>
}
interface BunRuntime {
  serve(options: { port: number; hostname: string; fetch: (request: Request, server: BunServer) => Response | Promise<Response> }): BunServer
  write(path: string, data: string): Promise<number>
  file(path: string): { exists(): Promise<boolean>; stat(): Promise<{ ino: number; size: number; mtimeMs: number }>; text(): Promise<string> }
  env: Record<string, string | undefined>
}
interface BunProcess {
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): void
  exit(code: number): never
}

const bun = (): BunRuntime => (globalThis as unknown as { Bun: BunRuntime }).Bun
const bunProcess = (): BunProcess => (globalThis as unknown as { process: BunProcess }).process

export function serve(app: Pick<App, 'fetch'>, options: ServeOptions = {}): RunningServer {
  const server = bun().serve({
    port: options.port ?? 8080,
    hostname: options.host ?? '127.0.0.1',
    fetch: (request, server) => {
      const remoteAddress = server.requestIP(request)?.address
      // A read of the body after the answer fails on Bun: a body being read may end first (settle-body.ts).
      const answer = answerSettlingBody(request, (request) => app.fetch(request, { [CONN_INFO]: { remoteAddress } }))
      // Bun would send `Content-Length: 0` for a body-less HEAD answer whose length svc does not know.
      return request.method === 'HEAD' ? unmeasuredHeadAnswer(answer) : answer
    },
  })
  const running = runningServer(server.hostname, server.port, () => server.stop(false), options.onClose)
  if (options.signals !== false) {
    const process = bunProcess()
    stopOnSignals(running, (signal, stop) => process.on(signal, stop), (code) => process.exit(code))
  }
  return running
}

/** The app's libSQL database (a local file, its folder created, or a server URL) and the trace store in one of its own. */
// Bun.write creates the folders of the path it writes: a marker file makes the folder.
export const { openDatabase, openTraceStore } = libsqlOpeners(createClient, async (folder) => void (await bun().write(`${folder}/.keep`, '')))

/**
 * The RS256 key pair in `<storageDir>/keys/` (`svc key:generate --rs256`), for `authPlugin({ keys })`: the files
 * that exist (none is fine for HS256, or keys in JWT_PRIVATE_KEY / JWT_PUBLIC_KEY, which win).
 */
export function readJwtKeyFiles(storageDir: string): Promise<JwtKeyMaterial> {
  return readJwtKeyFilesWith(storageDir, async (path) => {
    const file = bun().file(path)
    return (await file.exists()) ? file.text() : undefined
  })
}

/** The process environment (Bun loads `.env` into it): what `resolveConfig` reads. */
export function readEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(bun().env)) if (value !== undefined) env[name] = value
  return env
}

/**
 * Maintenance mode as `svc serve` has it: the source for
 * `createApp({ maintenance })`, polling the state file `svc down` writes
 * (at most once a second; framework/middleware/maintenance/state-file.ts).
 *
 * @example createApp({ ..., maintenance: maintenanceFile('storage/maintenance.json') })
 */
export function maintenanceFile(path: string, options: MaintenancePollOptions = {}): MaintenanceSource {
  return pollMaintenanceFile(path, { identity: bunIdentity, read: (file) => bun().file(file).text() }, options)
}

async function bunIdentity(path: string): Promise<string | undefined> {
  try {
    const stat = await bun().file(path).stat()
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
  } catch (error) {
    // ENOENT: up. Anything else is the request's error, as on Node.
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined
    throw error
  }
}
