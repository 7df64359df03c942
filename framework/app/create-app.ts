/**
 * `createApp` turns route definitions into a fetch handler that runs
 * unchanged in Node, Deno, Bun and Cloudflare Workers.
 *
 * @example
 * const app = createApp({ config: resolveConfig(env), api, web, database })
 * export default { fetch: app.fetch }
 */
import { resolveConfig, type AppConfig } from '../config/config.ts'
import { Context, setError, setMatch, setRecorder, type ExecutionContextLike, type MatchedRoute } from '../context/context.ts'
import type { Database } from '../database/database.ts'
import type { Mailer } from '../mail/index.ts'
import type { Queue } from '../queue/queue.ts'
import { databaseCheck, healthRoutes, type HealthCheck } from '../health/health.ts'
import { HttpError } from '../http/http-error.ts'
import { idempotentAlias } from '../idempotency/alias.ts'
import { errorResponse, hasTraceId, headAnswer, TRACE_HEADER, withHeaders } from '../http/response.ts'
import { middlewareName, resolveMiddleware, type AliasRegistry, type AppServices } from '../middleware/aliases.ts'
import { compose, notFound, type Pipeline } from '../middleware/compose.ts'
import { cors, type CorsOptions } from '../middleware/cors/index.ts'
import { maintenanceMode, type MaintenanceSource } from '../middleware/maintenance/index.ts'
import type { RouteDefinition } from '../router/define-routes.ts'
import { explainRoutes, type RoutingExplanation } from '../router/explain.ts'
import { API_PREFIX, compilePath, isApiPath, joinPaths, type PathPattern } from '../router/path-grammar.ts'
import { RouteTable, type RouteMatch } from '../router/route-table.ts'
import type { Middleware, MiddlewareSpec, RouteDescription, RouteRecord } from '../router/types.ts'
import { readSourceLocation } from '../router/source-location.ts'
import type { RequestRecorder, Tracer } from '../trace/recorder.ts'
import { createTraceId } from '../trace/trace-id.ts'
import type { ValidationMessageFormatter } from '../validation/issues.ts'
import { withInputValidation } from '../validation/route-input.ts'
import { clientAddress } from './client-address.ts'
import { connInfoFromEnv, type ConnInfoReader } from './conn-info.ts'
import { errorAnswer, type ErrorHook } from './on-error.ts'
import { yieldToApp } from './yield-to-app.ts'

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
  /** Where `c.queue.dispatch()` sends jobs (`createQueue(driver)`); the `svc` CLI builds it from QUEUE_CONNECTION. */
  queue?: Queue
  /** What `c.mailer` and auth's mails send with; the `svc` CLI builds it from MAIL_MAILER. */
  mailer?: Mailer
  /** Global middleware: runs on every request, 404, 405 and OPTIONS included. */
  middleware?: MiddlewareSpec[]
  /** Middleware aliases usable in route definitions, beside the built-in ones. */
  aliases?: AliasRegistry
  healthChecks?: Record<string, HealthCheck>
  /** CORS settings; by default built from `CORS_ORIGINS` (off when it is empty). */
  cors?: CorsOptions | false
  /**
   * Where the connection's details (the socket peer's address) come from. By
   * default, the value the adapter passes under `CONN_INFO` in `env` (svc's
   * Node `serve` does); a runtime that says it otherwise gives its own reader.
   * Never a key of `env`: see docs/runtimes.md.
   */
  connInfo?: ConnInfoReader
  plugins?: AppPluginSpec[]
  /**
   * Words every validation error (routes' `.body()`/`.query()`, `c.validate()`,
   * the auth routes); svc's style by default. See docs/validation.md.
   */
  validationMessage?: ValidationMessageFormatter
  /**
   * Sees every error that is not an `HttpError` (with the context and the
   * trace id) and may answer it with a Response. Without it, such an error is
   * logged once to stderr with its trace id and stack (no stack in production).
   * See docs/errors.md.
   */
  onError?: ErrorHook
  /** Records every request (see `Tracer`); none by default. */
  tracer?: Tracer
  /**
   * Where maintenance mode (`svc down`) is read from, per request: the
   * runtime adapter's (svc's CLI passes a state file polled at most once a
   * second). Checked first, after CORS. See docs/deployment.md.
   */
  maintenance?: MaintenanceSource
}

export interface App {
  /** A Response, or a promise of one: every fetch runtime takes either (a synchronous answer saves Node a promise). */
  fetch(request: Request, env?: unknown, executionCtx?: ExecutionContextLike): Response | Promise<Response>
  /**
   * The answer to a request the server refused before the app could see it
   * (bad framing, headers too large, too slow): `error` in the envelope with
   * a trace id, traced like any request. Runtime adapters call it (svc/node's
   * `serve` from Node's `clientError`); `request` is what could be read of it.
   */
  reject(request: Request, error: HttpError, env?: unknown): Response
  readonly config: AppConfig
  readonly database: Database | undefined
  readonly queue: Queue | undefined
  readonly mailer: Mailer | undefined
  /** The compiled route table, in matching order. */
  routes(): RouteDescription[]
  /**
   * What the router does with a request, from this very table: the route that
   * answers (or 405 and its Allow list, OPTIONS, the fallback, a 400), and why
   * each route before it does not. `svc api:why` prints it.
   * @example await app.explain('GET', '/api/v1/posts/abc')
   */
  explain(method: string, path: string): Promise<RoutingExplanation>
}

interface CompiledRoute {
  record: RouteRecord
  method: RouteRecord['method']
  path: string
  pattern: PathPattern
  where: ReadonlyMap<string, RegExp>
  description: () => RouteDescription
  pipeline: Pipeline
  /** What `c.route` says once this route matched: one frozen object per route, not one a request. */
  matched: MatchedRoute
}

export { API_PREFIX }

export function createApp(options: AppOptions = {}): App {
  const config = options.config ?? resolveConfig({})
  const database = options.database
  const { queue, mailer } = options
  const services: AppServices = { config, database, queue, mailer }
  const plugins = (options.plugins ?? []).map((plugin) => (typeof plugin === 'function' ? plugin(services) : plugin))
  const aliases: AliasRegistry = Object.assign({ idempotent: idempotentAlias }, ...plugins.map((plugin) => plugin.aliases), options.aliases)
  const resolve = (spec: MiddlewareSpec): Middleware => resolveMiddleware(spec, aliases, services)

  const corsOptions = options.cors ?? (config.corsOrigins.length > 0 ? { origins: config.corsOrigins } : false)
  const globalSpecs: MiddlewareSpec[] = [
    ...(corsOptions ? [cors(corsOptions)] : []),
    ...(options.maintenance ? [maintenanceMode(options.maintenance)] : []),
    ...plugins.flatMap((plugin) => plugin.middleware ?? []),
    ...(options.middleware ?? []),
  ]
  const globalMiddleware = globalSpecs.map(resolve)
  const fail = errorAnswer(options.onError)

  const checks: Record<string, HealthCheck> = Object.assign(
    database ? { database: databaseCheck(database) } : {},
    ...plugins.map((plugin) => plugin.healthChecks),
    options.healthChecks,
  )
  const sources: Array<{ prefix: string; definition: RouteDefinition; builtin: boolean }> = [
    { prefix: '/', definition: healthRoutes(checks), builtin: true },
    ...plugins.flatMap((plugin) => [
      ...(plugin.api ? [{ prefix: API_PREFIX, definition: plugin.api, builtin: true }] : []),
      ...(plugin.web ? [{ prefix: '/', definition: yieldToApp(plugin.web, options.web), builtin: true }] : []),
    ]),
    ...(options.api ? [{ prefix: API_PREFIX, definition: options.api, builtin: false }] : []),
    ...(options.web ? [{ prefix: '/', definition: options.web, builtin: false }] : []),
  ]

  const compiled: CompiledRoute[] = sources.flatMap(({ prefix, definition, builtin }) =>
    definition.routes.map((route) => compileRoute({ ...route, path: joinPaths(prefix, route.path) }, builtin)),
  )
  const table = new RouteTable(compiled.map((route) => ({ method: route.method, pattern: route.pattern, where: route.where, value: route })))

  const fallbacks = { api: options.api?.fallback, web: options.web?.fallback }
  /** The fallback for a path: its own file's (`routes/api.ts` for /api paths), else the other one. */
  const fallbackFor = (path: string): 'api' | 'web' | undefined => {
    const own = isApiPath(path) ? 'api' : 'web'
    const other = own === 'api' ? 'web' : 'api'
    return fallbacks[own] !== undefined ? own : fallbacks[other] !== undefined ? other : undefined
  }
  const unmatched = compose(globalMiddleware, async function unmatchedRequest(c): Promise<Response> {
    const allowed = await table.allowedMethods(c.request.url, c.path)
    if (allowed.length > 0) {
      const allow = [...allowed, 'OPTIONS'].join(', ')
      if (c.method === 'OPTIONS') return new Response(null, { status: 204, headers: { Allow: allow, [TRACE_HEADER]: c.traceId } })
      throw new HttpError(405, 'Method Not Allowed', { headers: { Allow: allow } })
    }
    const fallback = fallbackFor(c.path)
    if (fallback !== undefined) return compose([], fallbacks[fallback]!, fail)(c)
    throw notFound()
  }, fail)

  const readConnInfo = options.connInfo ?? connInfoFromEnv
  const tracer = options.tracer
  const validationMessage = options.validationMessage

  /**
   * Answers synchronously when nothing on the way was asynchronous (a static
   * route itty matched before, a handler returning a plain value): the Node
   * adapter then writes the response without a promise, as Hono's does.
   */
  function fetch(request: Request, env?: unknown, executionCtx?: ExecutionContextLike): Response | Promise<Response> {
    const traceId = createTraceId(config.tracePrefix)
    const connInfo = readConnInfo(request, env)
    const c = new Context({
      request,
      traceId,
      connInfo,
      ip: clientAddress(request, connInfo?.remoteAddress, config.trustedProxies),
      config,
      db: database,
      queue,
      mailer,
      env,
      executionCtx,
      validationMessage,
    })
    const recorder = tracer?.begin(c)
    if (recorder !== undefined) setRecorder(c, recorder)

    let found: ReturnType<typeof table.find> | undefined
    try {
      found = request.method === 'OPTIONS' ? undefined : table.find(request.method, request.url, c.path)
    } catch (error) {
      return settle(c, answerMatchError(c, error), recorder)
    }
    if (found instanceof Promise) {
      // One step after itty's answer: a pipeline that answers synchronously is finished in it.
      return found.then(
        (match) => settle(c, dispatch(c, match), recorder),
        (error: unknown) => settle(c, answerMatchError(c, error), recorder),
      )
    }
    return settle(c, dispatch(c, found), recorder)
  }

  function settle(c: Context, answer: Response | Promise<Response>, recorder: RequestRecorder | undefined): Response | Promise<Response> {
    return answer instanceof Promise ? answer.then((response) => finish(c, response, recorder)) : finish(c, answer, recorder)
  }

  function dispatch(c: Context, match: RouteMatch<CompiledRoute> | undefined): Response | Promise<Response> {
    if (match === undefined) return unmatched(c)
    setMatch(c, match.params, match.value.matched)
    return match.value.pipeline(c)
  }

  /**
   * Only matching itself throws (a malformed path parameter): the pipelines catch their own.
   * The answer still passes the global middleware (CORS, timing), as a 404 does.
   */
  function answerMatchError(c: Context, error: unknown): Response | Promise<Response> {
    return compose(
      globalMiddleware,
      () => {
        throw error
      },
      fail,
    )(c)
  }

  function reject(request: Request, error: HttpError, env?: unknown): Response {
    const traceId = createTraceId(config.tracePrefix)
    const connInfo = readConnInfo(request, env)
    const ip = clientAddress(request, connInfo?.remoteAddress, config.trustedProxies)
    const c = new Context({ request, traceId, connInfo, ip, config, db: database, queue, mailer, env, executionCtx: undefined, validationMessage })
    const recorder = tracer?.begin(c)
    if (recorder !== undefined) setRecorder(c, recorder)
    recorder?.recordRefusal?.()
    setError(c, error)
    return finish(c, errorResponse(error, { [TRACE_HEADER]: traceId }, config.debug), recorder)
  }

  function finish(c: Context, answer: Response, recorder: RequestRecorder | undefined): Response {
    let response = answer
    if (!hasTraceId(response, c.traceId)) response = withHeaders(response, { [TRACE_HEADER]: c.traceId })
    if (c.method === 'HEAD' && response.body !== null) response = headAnswer(response)
    // An answer that cannot go out is not traced: the server's own answer to the request was (conn-info.ts).
    if (recorder !== undefined && c.connInfo?.answeredByServer !== true) tracer!.end(c, response, recorder)
    return response
  }

  function compileRoute(record: RouteRecord, builtin: boolean): CompiledRoute {
    const routeMiddleware = record.middleware.map(resolve)
    const pattern = compilePath(record.path)
    return {
      record,
      method: record.method,
      path: record.path,
      pattern,
      where: record.where,
      matched: Object.freeze({ method: record.method, path: record.path }),
      pipeline: compose([...globalMiddleware, ...routeMiddleware], withInputValidation(record.schemas, record.handler), fail),
      description: () => ({
        method: record.method,
        path: record.path,
        params: pattern.params.map((param) => ({
          ...param,
          pattern: record.where.get(param.name)?.source ?? null,
        })),
        middleware: record.middleware.map(middlewareName),
        handler: record.handler.name || 'anonymous',
        source: builtin ? null : readSourceLocation(record.definedAt),
        group: record.group,
        version: record.version,
        schemas: {
          body: record.schemas.body ?? null,
          query: record.schemas.query ?? null,
          response: record.schemas.response ?? null,
        },
        responses: record.responses,
      }),
    }
  }

  return {
    fetch,
    reject,
    config,
    database,
    queue,
    mailer,
    routes: () => compiled.map((route) => route.description()),
    explain: (method, path) => explainRoutes({ table, routes: compiled, fallbackFor }, method, path),
  }
}

/** What `app/kernel.ts` may set: the parts of an app that are not routes, config or database. */
export type KernelOptions = Pick<
  AppOptions,
  'middleware' | 'aliases' | 'healthChecks' | 'cors' | 'connInfo' | 'plugins' | 'validationMessage' | 'onError'
>

/** @example export default defineKernel({ middleware: [requestTimer], aliases: { apikey: apiKeyAlias } }) */
export function defineKernel(options: KernelOptions): KernelOptions {
  return options
}
