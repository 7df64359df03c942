/**
 * The route definition API used in `routes/api.ts` and `routes/web.ts`.
 *
 * @example
 * export default defineRoutes((r) => {
 *   r.get('/posts/{id}', (c) => findPost(c.params.id)).where('id', /\d+/)
 *   r.post('/posts', createPost).body(PostInput).middleware('auth')
 *   r.group({ prefix: 'admin', middleware: ['auth:admin'] }, (r) => {
 *     r.delete('/posts/{id}', deletePost)
 *   })
 *   r.version(2, (r) => r.get('/posts', listPostsV2))
 *   r.fallback(() => { throw new HttpError(404, 'Nothing here') })
 * })
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { InputSchemas } from '../context/context.ts'
import { anchorConstraint, compilePath, joinPaths, paramNames, RouteDefinitionError } from './path-grammar.ts'
import type { Handler, MiddlewareSpec, ResponseOptions, RouteMethod, RouteRecord } from './types.ts'

/** Success statuses that carry no body. */
const NO_BODY_STATUSES = [204, 205, 304]

/**
 * The schemas a route may declare for `key`: any Standard Schema, or, when the
 * handler's context names one (`Context<'/posts', { body: typeof PostInput }>`),
 * one whose output is what the handler reads.
 */
type SchemaFor<Input extends InputSchemas, Key extends keyof InputSchemas> = Input extends { [K in Key]: infer S extends StandardSchemaV1 }
  ? StandardSchemaV1<unknown, StandardSchemaV1.InferOutput<S>>
  : StandardSchemaV1

export interface GroupOptions {
  prefix?: string
  middleware?: MiddlewareSpec[]
}

export interface RouteDefinition {
  readonly routes: readonly RouteRecord[]
  readonly fallback: Handler | undefined
}

/** Returned by `r.get()` and friends, to refine the route just added. */
export class RouteHandle<Path extends string = string, Input extends InputSchemas = {}> {
  constructor(private readonly record: RouteRecord) {}

  /** Constrains parameters: a value that does not match the pattern does not match the route. */
  where(name: string, pattern: RegExp | string): this
  where(constraints: Record<string, RegExp | string>): this
  where(nameOrConstraints: string | Record<string, RegExp | string>, pattern?: RegExp | string): this {
    const constraints =
      typeof nameOrConstraints === 'string' ? { [nameOrConstraints]: pattern! } : nameOrConstraints
    const declared = paramNames(this.record.path)
    for (const [name, value] of Object.entries(constraints)) {
      if (!declared.includes(name)) {
        throw new RouteDefinitionError(`Route ${this.record.path}: where('${name}') names no parameter of the path`)
      }
      this.record.where.set(name, anchor(value, this.record.path))
    }
    return this
  }

  /** Adds middleware (functions or aliases) after the group's, in the order given. */
  middleware(...specs: MiddlewareSpec[]): this {
    this.record.middleware.push(...specs)
    return this
  }

  /** Shorthand for the `throttle:<maxAttempts>,<decayMinutes>` alias. */
  throttle(maxAttempts: number, decayMinutes: number): this {
    return this.middleware(`throttle:${maxAttempts},${decayMinutes}`)
  }

  /**
   * Declares the JSON body (any Standard Schema: valibot, zod, arktype...). It
   * is validated after the route's middleware, before the handler: a failure
   * answers 422 with `errors` per field; the handler's `await c.body()` is the schema's output.
   * @example r.post('/posts', createPost).body(v.object({ title: v.string() }))
   */
  body<S extends SchemaFor<Input, 'body'>>(schema: S): this {
    return this.declare('body', schema)
  }

  /**
   * Declares the query string, validated like the body. The schema receives an
   * object (`?tag=a&tag=b&page=2` is `{ tag: ['a', 'b'], page: '2' }`); `c.query`
   * is then its output (`c.url.searchParams` stays the raw one).
   */
  query<S extends SchemaFor<Input, 'query'>>(schema: S): this {
    return this.declare('query', schema)
  }

  /**
   * Declares what the handler answers, for the API description (svc
   * make:openapi; not checked at run time): the schema of the envelope's
   * `data`, and the status when it is not 200. `null` is a response without
   * a body, which needs `{ status: 204 }`.
   * @example r.post('/posts', createPost).body(PostInput).response(Post, { status: 201 })
   * @example r.delete('/posts/{id}', deletePost).response(null, { status: 204 })
   * @example r.get('/verify-email', verifyEmailPage).response(v.string(), { contentType: 'text/html' })
   */
  response(schema: StandardSchemaV1 | null, options: ResponseOptions = {}): this {
    const status = options.status ?? 200
    const where = `Route ${this.record.path}: .response()`
    if (!Number.isInteger(status) || status < 200 || status > 399) {
      throw new RouteDefinitionError(`${where} takes a success status from 200 to 399, got ${status}`)
    }
    if (schema === null && !NO_BODY_STATUSES.includes(status)) {
      throw new RouteDefinitionError(`${where}: a response without a body (null) has status 204, 205 or 304, got ${status}`)
    }
    const contentType = options.contentType?.trim().toLowerCase()
    if (contentType !== undefined && !/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(contentType)) {
      throw new RouteDefinitionError(`${where}: contentType is a media type such as text/html, got ${JSON.stringify(options.contentType)}`)
    }
    if (schema !== null) this.declare('response', schema)
    // Not JSON: there is no envelope, the schema is the whole body.
    const json = contentType === undefined || contentType === 'application/json'
    this.record.responses = { ...this.record.responses, status, envelope: json && (options.envelope ?? true), ...(json ? {} : { contentType }) }
    return this
  }

  /**
   * Documents error answers the handler itself gives (status => when), for
   * the API description. Those svc knows are documented without it: 401/403
   * from `auth`, 422 from declared schemas, 429 from `throttle`, 404 where
   * the path has parameters...
   * @example r.get('/posts/{id}', showPost).errors({ 404: 'No post has this id' })
   */
  errors(errors: Record<number, string>): this {
    for (const [key, description] of Object.entries(errors)) {
      const status = Number(key)
      if (!Number.isInteger(status) || status < 400 || status > 599) {
        throw new RouteDefinitionError(`Route ${this.record.path}: .errors() takes statuses from 400 to 599, got ${key}`)
      }
      if (typeof description !== 'string' || description.trim() === '') {
        throw new RouteDefinitionError(`Route ${this.record.path}: .errors() needs a description for ${key}`)
      }
    }
    this.record.responses = { ...this.record.responses, errors: { ...this.record.responses.errors, ...errors } }
    return this
  }

  private declare(key: keyof RouteRecord['schemas'], schema: StandardSchemaV1): this {
    if (typeof schema?.['~standard']?.validate !== 'function') {
      throw new RouteDefinitionError(`Route ${this.record.path}: .${key}() takes a Standard Schema (valibot, zod, arktype...)`)
    }
    this.record.schemas[key] = schema
    return this
  }
}

export class RouteRegistrar {
  constructor(
    private readonly target: RouteRecord[],
    private readonly scope: { prefix: string; middleware: MiddlewareSpec[]; group: string | null; version: number | null },
    private readonly setFallback: (handler: Handler) => void,
  ) {}

  get<Path extends string, Input extends InputSchemas = {}>(path: Path, handler: Handler<Path, Input>): RouteHandle<Path, Input> {
    return this.add('GET', path, handler)
  }
  post<Path extends string, Input extends InputSchemas = {}>(path: Path, handler: Handler<Path, Input>): RouteHandle<Path, Input> {
    return this.add('POST', path, handler)
  }
  put<Path extends string, Input extends InputSchemas = {}>(path: Path, handler: Handler<Path, Input>): RouteHandle<Path, Input> {
    return this.add('PUT', path, handler)
  }
  patch<Path extends string, Input extends InputSchemas = {}>(path: Path, handler: Handler<Path, Input>): RouteHandle<Path, Input> {
    return this.add('PATCH', path, handler)
  }
  delete<Path extends string, Input extends InputSchemas = {}>(path: Path, handler: Handler<Path, Input>): RouteHandle<Path, Input> {
    return this.add('DELETE', path, handler)
  }
  /** A route that accepts every method (OPTIONS stays automatic). */
  any<Path extends string, Input extends InputSchemas = {}>(path: Path, handler: Handler<Path, Input>): RouteHandle<Path, Input> {
    return this.add('ANY', path, handler)
  }

  /** Routes sharing a path prefix and/or middleware; groups nest and prefixes concatenate. */
  group(options: GroupOptions | string, define: (r: RouteRegistrar) => void): void {
    const { prefix = '', middleware = [] } = typeof options === 'string' ? { prefix: options } : options
    const fullPrefix = joinPaths(this.scope.prefix, prefix)
    define(
      new RouteRegistrar(
        this.target,
        {
          prefix: fullPrefix,
          middleware: [...this.scope.middleware, ...middleware],
          group: fullPrefix === '/' ? this.scope.group : fullPrefix,
          version: this.scope.version,
        },
        this.setFallback,
      ),
    )
  }

  /** `version(1, ...)` puts its routes under `/v1` (so `/api/v1` in `routes/api.ts`). */
  version(version: number, define: (r: RouteRegistrar) => void, options: Omit<GroupOptions, 'prefix'> = {}): void {
    if (!Number.isInteger(version) || version < 1) {
      throw new RouteDefinitionError(`version() takes a whole number from 1, got ${version}`)
    }
    const fullPrefix = joinPaths(this.scope.prefix, `v${version}`)
    define(
      new RouteRegistrar(
        this.target,
        {
          prefix: fullPrefix,
          middleware: [...this.scope.middleware, ...(options.middleware ?? [])],
          group: fullPrefix,
          version,
        },
        this.setFallback,
      ),
    )
  }

  /** Answers requests that match no route (instead of the default 404 envelope). */
  fallback(handler: Handler): void {
    this.setFallback(handler)
  }

  private add<Path extends string, Input extends InputSchemas>(method: RouteMethod, path: Path, handler: Handler<Path, Input>): RouteHandle<Path, Input> {
    if (typeof handler !== 'function') {
      throw new RouteDefinitionError(`Route ${method} ${path}: the handler must be a function`)
    }
    const fullPath = joinPaths(this.scope.prefix, path)
    compilePath(fullPath) // fails here, at the line that wrote the route, if the path is malformed
    const record: RouteRecord = {
      method,
      path: fullPath,
      handler: handler as Handler,
      middleware: [...this.scope.middleware],
      where: new Map(),
      group: this.scope.group,
      version: this.scope.version,
      schemas: {},
      responses: { status: 200, envelope: true, errors: {} },
      definedAt: new Error('route defined here'),
    }
    this.target.push(record)
    return new RouteHandle<Path, Input>(record)
  }
}

export function defineRoutes(define: (r: RouteRegistrar) => void): RouteDefinition {
  const routes: RouteRecord[] = []
  let fallback: Handler | undefined
  define(
    new RouteRegistrar(routes, { prefix: '/', middleware: [], group: null, version: null }, (handler) => {
      fallback = handler
    }),
  )
  return { routes, fallback }
}

function anchor(pattern: RegExp | string, path: string): RegExp {
  try {
    return anchorConstraint(pattern)
  } catch (error) {
    throw new RouteDefinitionError(`Route ${path}: invalid constraint ${String(pattern)}: ${(error as Error).message}`)
  }
}
