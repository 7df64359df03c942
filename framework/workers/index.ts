/**
 * svc's Cloudflare Workers adapter: a module worker's `fetch` that builds the
 * app once per isolate (from the bindings, on the first request), passes the
 * client address Cloudflare gives (`CF-Connecting-IP`) in the typed
 * connection info, and hands the app the execution context, so that the
 * tracer writes each request's trace through `ctx.waitUntil` (Workers runs
 * no timer after the response). D1 is the database (`d1Database`), the
 * migrations come bundled (`svc migrate:bundle`). Needs no `nodejs_compat`.
 *
 * @example
 * export default workersHandler(async (env) => {
 *   const database = d1Database(env.DB)
 *   await migrate(database, migrations)
 *   return { app: createApp({ config: resolveConfig(stringVars(env)), database, api }) }
 * })
 */
import { CONN_INFO, type ConnInfo } from '../app/conn-info.ts'
import type { App } from '../app/create-app.ts'
import { ConfigError } from '../config/config-error.ts'
import type { ExecutionContextLike } from '../context/context.ts'
import { errorEnvelope, jsonResponse } from '../http/response.ts'

export { d1Database, d1Driver, type D1DatabaseBinding, type D1PreparedStatementBinding, type D1ResultBinding } from './d1.ts'

export interface WorkerApp {
  app: Pick<App, 'fetch'>
}

export interface WorkersHandler<Env> {
  fetch(request: Request, env: Env, ctx: ExecutionContextLike): Promise<Response>
}

export function workersHandler<Env extends object>(build: (env: Env) => Promise<WorkerApp> | WorkerApp): WorkersHandler<Env> {
  let built: Promise<WorkerApp> | undefined
  return {
    async fetch(request, env, ctx) {
      // Built once per isolate; a failed build (a migration, the config) is tried again by the next request.
      built ??= Promise.resolve()
        .then(() => build(env))
        .catch((error: unknown) => {
          built = undefined
          throw error
        })
      let app: WorkerApp['app']
      try {
        ;({ app } = await built)
      } catch (error) {
        return buildFailed(error)
      }
      return app.fetch(request, { ...env, [CONN_INFO]: workersConnInfo(request) }, ctx)
    },
  }
}

/**
 * A build that threw (a missing JWT_SECRET, a failed migration) answers the
 * JSON envelope, 500, without a stack: a configuration error says which
 * variable and where a Worker gets it (.dev.vars, `wrangler secret put`,
 * `[vars]`); anything else says only that the app could not start. The whole
 * error goes to the Worker's log (`wrangler tail`, the dashboard).
 */
function buildFailed(error: unknown): Response {
  console.error('svc: the app could not be built:', error)
  const message =
    error instanceof ConfigError
      ? `Configuration error: ${workersConfigMessage(error)}`
      : "The app could not start; the Worker's log (wrangler tail) says why."
  return jsonResponse(errorEnvelope(500, message), 500, { 'cache-control': 'no-store' })
}

/** The ConfigError's problem, its fix said the Workers way (there is no .env to write to, no CLI beside the Worker). */
function workersConfigMessage(error: ConfigError): string {
  const name = error.variable
  const fix = /SECRET|KEY|PASSWORD|TOKEN/.test(name)
    ? `put it in .dev.vars for \`wrangler dev\`; for a deployed Worker, \`wrangler secret put ${name}\``
    : `set it in .dev.vars for \`wrangler dev\`; for a deployed Worker, under [vars] in wrangler.toml`
  const generate = error.cliFix?.includes('svc key:generate') === true ? ' (`svc key:generate --show` prints one)' : ''
  return `${name}: ${error.problem}. On Workers: ${fix}${generate}.`
}

/** The client as Cloudflare saw it: `CF-Connecting-IP`, which its edge sets on every request (a client's own is replaced). */
export function workersConnInfo(request: Request): ConnInfo {
  return { remoteAddress: request.headers.get('cf-connecting-ip') ?? undefined }
}

/** The string variables of a Worker's `env` (`[vars]`, secrets), without its bindings: what `resolveConfig` reads. */
export function stringVars(env: object): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (typeof value === 'string') vars[name] = value
  return vars
}
