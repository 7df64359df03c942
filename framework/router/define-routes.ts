/**
 * The route definition API used in `routes/api.ts` and `routes/web.ts`.
 *
 * @example
 * export default defineRoutes((r) => {
 *   r.get('/posts/{id}', showPost).where('id', /\d+/)
 *   r.group({ prefix: 'admin', middleware: ['auth:admin'] }, (r) => {
 *     r.delete('/posts/{id}', deletePost)
 *   })
 *   r.version(2, (r) => r.get('/posts', listPostsV2))
 *   r.fallback(() => { throw new HttpError(404, 'Nothing here') })
 * })
 */
import { compilePath, joinPaths, RouteDefinitionError } from './path-pattern.ts'
import type { Handler, MiddlewareSpec, RouteMethod, RouteRecord } from './types.ts'

export interface GroupOptions {
  prefix?: string
  middleware?: MiddlewareSpec[]
}

export interface RouteDefinition {
  readonly routes: readonly RouteRecord[]
  readonly fallback: Handler | undefined
}

/** Returned by `r.get()` and friends, to refine the route just added. */
export class RouteHandle {
  constructor(private readonly record: RouteRecord) {}

  /** Constrains parameters: a value that does not match the pattern does not match the route. */
  where(name: string, pattern: RegExp | string): this
  where(constraints: Record<string, RegExp | string>): this
  where(nameOrConstraints: string | Record<string, RegExp | string>, pattern?: RegExp | string): this {
    const constraints =
      typeof nameOrConstraints === 'string' ? { [nameOrConstraints]: pattern! } : nameOrConstraints
    const declared = compilePath(this.record.path).params.map((param) => param.name)
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
}

export class RouteRegistrar {
  constructor(
    private readonly target: RouteRecord[],
    private readonly scope: { prefix: string; middleware: MiddlewareSpec[]; group: string | null; version: number | null },
    private readonly setFallback: (handler: Handler) => void,
  ) {}

  get(path: string, handler: Handler): RouteHandle {
    return this.add('GET', path, handler)
  }
  post(path: string, handler: Handler): RouteHandle {
    return this.add('POST', path, handler)
  }
  put(path: string, handler: Handler): RouteHandle {
    return this.add('PUT', path, handler)
  }
  patch(path: string, handler: Handler): RouteHandle {
    return this.add('PATCH', path, handler)
  }
  delete(path: string, handler: Handler): RouteHandle {
    return this.add('DELETE', path, handler)
  }
  /** A route that accepts every method (OPTIONS stays automatic). */
  any(path: string, handler: Handler): RouteHandle {
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

  private add(method: RouteMethod, path: string, handler: Handler): RouteHandle {
    if (typeof handler !== 'function') {
      throw new RouteDefinitionError(`Route ${method} ${path}: the handler must be a function`)
    }
    const fullPath = joinPaths(this.scope.prefix, path)
    compilePath(fullPath) // fails here, at the line that wrote the route, if the path is malformed
    const record: RouteRecord = {
      method,
      path: fullPath,
      handler,
      middleware: [...this.scope.middleware],
      where: new Map(),
      group: this.scope.group,
      version: this.scope.version,
      definedAt: new Error('route defined here'),
    }
    this.target.push(record)
    return new RouteHandle(record)
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
    const source = typeof pattern === 'string' ? pattern : pattern.source
    const flags = typeof pattern === 'string' ? '' : pattern.flags.replace(/[gy]/g, '')
    return new RegExp(`^(?:${source.replace(/^\^/, '').replace(/(?<!\\)\$$/, '')})$`, flags)
  } catch (error) {
    throw new RouteDefinitionError(`Route ${path}: invalid constraint ${String(pattern)}: ${(error as Error).message}`)
  }
}
