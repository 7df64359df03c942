/**
 * `createApp` turns route definitions into a fetch handler that runs
 * unchanged in Node, Deno, Bun and Cloudflare Workers.
 *
 * @example
 * const app = createApp({ config: resolveConfig(env), api, web, database })
 * export default { fetch: app.fetch }
 */
import { resolveConfig, type AppConfig } from '../config/config.ts'
import { Context, type ExecutionContextLike } from '../context/context.ts'
import type { Database } from '../database/database.ts'
import { databaseCheck, healthRoutes, type HealthCheck } from '../health/health.ts'
import { HttpError } from '../http/http-error.ts'
import { errorResponse, hasTraceId, TRACE_HEADER, withHeaders } from '../http/response.ts'
import { middlewareName, resolveMiddleware, type AliasRegistry, type AppServices } from '../middleware/aliases.ts'
import { compose, notFound, type Pipeline } from '../middleware/compose.ts'
import { cors, type CorsOptions } from '../middleware/cors/index.ts'
import type { RouteDefinition } from '../router/define-routes.ts'
import { compilePath, joinPaths } from '../router/path-pattern.ts'
import { RouteTable } from '../router/route-table.ts'
import type { Handler, Middleware, MiddlewareSpec, RouteDescription, RouteRecord } from '../router/types.ts'
import { readSourceLocation } from '../router/source-location.ts'
import type { RequestRecorder, Tracer } from '../trace/recorder.ts'
import { createTraceId } from '../trace/trace-id.ts'
import { clientAddress, peerAddressFromEnv, type ClientAddressResolver } from './client-address.ts'

/**
 * A bundle of routes, aliases, global middleware and health checks that an
 * app includes as one (authentication is one). A function receives the app's
 * services, to build what needs the config or the database.
 */
export interface AppPlugin {
  name: string
  aliases?: AliasRegistry
  /** Routes under `/api`, matched before the app's own. */
  api?: RouteDefinition
  /** Routes without a prefix, matched before the app's own. */
  web?: RouteDefinition
  /** Global middleware, run before the app's own. */
  middleware?: MiddlewareSpec[]
  healthChecks?: Record<string, HealthCheck>
}

export type AppPluginSpec = AppPlugin | ((services: AppServices) => AppPlugin)

export interface AppOptions {
  /** Resolved settings; defaults to `resolveConfig({})`. */
  config?: AppConfig
  /** Routes under `/api` (`routes/api.ts`). */
  api?: RouteDefinition
  /** Routes without a prefix (`routes/web.ts`). */
  web?: RouteDefinition
  database?: Database
  /** Global middleware: runs on every request, 404, 405 and OPTIONS included. */
  middleware?: MiddlewareSpec[]
  /** Middleware aliases usable in route definitions, beside the built-in ones. */
  aliases?: AliasRegistry
  healthChecks?: Record<string, HealthCheck>
  /** CORS settings; by default built from `CORS_ORIGINS` (off when it is empty). */
  cors?: CorsOptions | false
  /** Where the socket peer's address comes from (the Node adapter passes `env.clientAddress`). */
  clientAddress?: ClientAddressResolver
  plugins?: AppPluginSpec[]
  /** Records every request (see `Tracer`); none by default. */
  tracer?: Tracer
}

export interface App {
  fetch(request: Request, env?: unknown, executionCtx?: ExecutionContextLike): Promise<Response>
  /**
   * The answer to a request the server refused before the app could see it
   * (bad framing, headers too large, too slow): `error` in the envelope with
   * a trace id, traced like any request. Runtime adapters call it (svc/node's
   * `serve` from Node's `clientError`); `request` is what could be read of it.
   */
  reject(request: Request, error: HttpError, env?: unknown): Response
  readonly config: AppConfig
  readonly database: Database | undefined
  /** The compiled route table, in matching order. */
  routes(): RouteDescription[]
}

interface CompiledRoute {
  record: RouteRecord
  description: () => RouteDescription
  pipeline: Pipeline
}

export const API_PREFIX = '/api'

export function createApp(options: AppOptions = {}): App {
  const config = options.config ?? resolveConfig({})
  const database = options.database
  const services: AppServices = { config, database }
  const plugins = (options.plugins ?? []).map((plugin) => (typeof plugin === 'function' ? plugin(services) : plugin))
  const aliases: AliasRegistry = Object.assign({}, ...plugins.map((plugin) => plugin.aliases), options.aliases)
  const resolve = (spec: MiddlewareSpec): Middleware => resolveMiddleware(spec, aliases, services)

  const corsOptions = options.cors ?? (config.corsOrigins.length > 0 ? { origins: config.corsOrigins } : false)
  const globalSpecs: MiddlewareSpec[] = [
    ...(corsOptions ? [cors(corsOptions)] : []),
    ...plugins.flatMap((plugin) => plugin.middleware ?? []),
    ...(options.middleware ?? []),
  ]
  const globalMiddleware = globalSpecs.map(resolve)

  const checks: Record<string, HealthCheck> = Object.assign(
    database ? { database: databaseCheck(database) } : {},
    ...plugins.map((plugin) => plugin.healthChecks),
    options.healthChecks,
  )
  const sources: Array<{ prefix: string; definition: RouteDefinition; builtin: boolean }> = [
    { prefix: '/', definition: healthRoutes(checks), builtin: true },
    ...plugins.flatMap((plugin) => [
      ...(plugin.api ? [{ prefix: API_PREFIX, definition: plugin.api, builtin: true }] : []),
      ...(plugin.web ? [{ prefix: '/', definition: plugin.web, builtin: true }] : []),
    ]),
    ...(options.api ? [{ prefix: API_PREFIX, definition: options.api, builtin: false }] : []),
    ...(options.web ? [{ prefix: '/', definition: options.web, builtin: false }] : []),
  ]

  const compiled: CompiledRoute[] = sources.flatMap(({ prefix, definition, builtin }) =>
    definition.routes.map((route) => compileRoute({ ...route, path: joinPaths(prefix, route.path) }, builtin)),
  )
  const table = new RouteTable(
    compiled.map((route) => ({
      method: route.record.method,
      pattern: compilePath(route.record.path),
      where: route.record.where,
      value: route,
    })),
  )

  const apiFallback = options.api?.fallback
  const webFallback = options.web?.fallback
  const unmatched = compose(globalMiddleware, async function unmatchedRequest(c): Promise<Response> {
    const allowed = await table.allowedMethods(c.request.url, c.path)
    if (allowed.length > 0) {
      const allow = [...allowed, 'OPTIONS'].join(', ')
      if (c.method === 'OPTIONS') return new Response(null, { status: 204, headers: { Allow: allow, [TRACE_HEADER]: c.traceId } })
      throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: allow } })
    }
    const isApiPath = c.path === API_PREFIX || c.path.startsWith(`${API_PREFIX}/`)
    const fallback: Handler | undefined = (isApiPath ? apiFallback : webFallback) ?? webFallback ?? apiFallback
    if (fallback !== undefined) return compose([], fallback)(c)
    throw notFound()
  })

  const resolveAddress = options.clientAddress ?? peerAddressFromEnv
  const tracer = options.tracer

  async function fetch(request: Request, env?: unknown, executionCtx?: ExecutionContextLike): Promise<Response> {
    const traceId = createTraceId(config.tracePrefix)
    const c = new Context({
      request,
      traceId,
      ip: clientAddress(request, resolveAddress(request, env), config.trustedProxies),
      config,
      db: database,
      env,
      executionCtx,
    })
    const recorder = tracer?.begin(c)
    c.recorder = recorder

    let response: Response
    try {
      const match = request.method === 'OPTIONS' ? undefined : await table.find(request.method, request.url, c.path)
      if (match === undefined) {
        response = await unmatched(c)
      } else {
        c.params = match.params
        c.route = { method: match.value.record.method, path: match.value.record.path }
        response = await match.value.pipeline(c)
      }
    } catch (error) {
      // Only matching itself throws (a malformed path parameter): the pipelines catch their own.
      // The answer still passes the global middleware (CORS, timing), as a 404 does.
      response = await compose(globalMiddleware, () => {
        throw error
      })(c)
    }
    return finish(c, response, recorder)
  }

  function reject(request: Request, error: HttpError, env?: unknown): Response {
    const traceId = createTraceId(config.tracePrefix)
    const ip = clientAddress(request, resolveAddress(request, env), config.trustedProxies)
    const c = new Context({ request, traceId, ip, config, db: database, env, executionCtx: undefined })
    const recorder = tracer?.begin(c)
    c.recorder = recorder
    c.error = error
    return finish(c, errorResponse(error, { [TRACE_HEADER]: traceId }, config.debug), recorder)
  }

  function finish(c: Context, answer: Response, recorder: RequestRecorder | undefined): Response {
    let response = answer
    if (!hasTraceId(response, c.traceId)) response = withHeaders(response, { [TRACE_HEADER]: c.traceId })
    if (c.method === 'HEAD' && response.body !== null) {
      response = new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers })
    }
    if (recorder !== undefined) tracer!.end(c, response, recorder)
    return response
  }

  function compileRoute(record: RouteRecord, builtin: boolean): CompiledRoute {
    const routeMiddleware = record.middleware.map(resolve)
    return {
      record,
      pipeline: compose([...globalMiddleware, ...routeMiddleware], record.handler),
      description: () => ({
        method: record.method,
        path: record.path,
        params: compilePath(record.path).params.map((param) => ({
          ...param,
          pattern: record.where.get(param.name)?.source ?? null,
        })),
        middleware: record.middleware.map(middlewareName),
        handler: record.handler.name || 'anonymous',
        source: builtin ? null : readSourceLocation(record.definedAt),
        group: record.group,
        version: record.version,
      }),
    }
  }

  return {
    fetch,
    reject,
    config,
    database,
    routes: () => compiled.map((route) => route.description()),
  }
}

/** What `app/kernel.ts` may set: the parts of an app that are not routes, config or database. */
export type KernelOptions = Pick<AppOptions, 'middleware' | 'aliases' | 'healthChecks' | 'cors' | 'clientAddress' | 'plugins'>

/** @example export default defineKernel({ middleware: [requestTimer], aliases: { apikey: apiKeyAlias } }) */
export function defineKernel(options: KernelOptions): KernelOptions {
  return options
}
