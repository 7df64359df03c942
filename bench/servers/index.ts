/**
 * The servers the benchmark can start, by name. Each one is imported only in
 * the child process that runs it (so @hono/node-server's global Response
 * never leaks into the srvx server, for example).
 *
 * To add one: write `bench/servers/<name>.ts` exporting a factory that
 * listens with `listen()` from ./types.ts, and add one line here.
 */
import type { ServerFactory } from './types.ts'

export const servers: Record<string, ServerFactory> = {
  raw: async () => (await import('./raw.ts')).startRawServer(),
  hono: async (options) => (await import('./hono.ts')).startHonoServer(options),
  svc: async (options) => (await import('./svc.ts')).startSvcServer(options),
  'svc-auth': async () => (await import('./svc-auth.ts')).startSvcAuthServer(),
  'hono-jwt': async (options) => (await import('./hono-jwt.ts')).startHonoJwtServer(options),
  'svc-trace': async (options) => (await import('./svc-trace.ts')).startSvcTraceServer(options),
  'svc-hash': async (options) => (await import('./svc-hash.ts')).startSvcHashServer(options),
  'hono-argon2': async () => (await import('./hono-argon2.ts')).startHonoArgon2Server(),
}
