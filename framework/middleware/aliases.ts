/**
 * Middleware aliases: strings such as `auth:admin,moderator` or
 * `throttle:60,1`, parsed once when the app compiles its routes into calls of
 * the registered factories. An unknown alias fails then, not at request time.
 */
import type { AppConfig } from '../config/config.ts'
import type { Database } from '../database/database.ts'
import type { Mailer } from '../mail/index.ts'
import type { Queue } from '../queue/queue.ts'
import { RouteDefinitionError } from '../router/path-grammar.ts'
import type { Middleware, MiddlewareSpec } from '../router/types.ts'

/** What an alias factory may use to build its middleware. */
export interface AppServices {
  config: AppConfig
  database: Database | undefined
  queue?: Queue
  mailer?: Mailer
}

/** Builds a middleware from the alias' arguments (`throttle:60,1` => `['60', '1']`). */
export type MiddlewareFactory = (args: string[], services: AppServices) => Middleware

export type AliasRegistry = Readonly<Record<string, MiddlewareFactory>>

export function parseAlias(alias: string): { name: string; args: string[] } {
  const colon = alias.indexOf(':')
  if (colon === -1) return { name: alias.trim(), args: [] }
  return {
    name: alias.slice(0, colon).trim(),
    args: alias
      .slice(colon + 1)
      .split(',')
      .map((arg) => arg.trim())
      .filter((arg) => arg !== ''),
  }
}

export function resolveMiddleware(spec: MiddlewareSpec, aliases: AliasRegistry, services: AppServices): Middleware {
  if (typeof spec === 'function') return spec
  const { name, args } = parseAlias(spec)
  const factory = Object.hasOwn(aliases, name) ? aliases[name] : undefined
  if (factory === undefined) {
    const known = Object.keys(aliases).sort().join(', ') || 'none registered'
    throw new RouteDefinitionError(`Unknown middleware alias "${spec}" (known aliases: ${known})`)
  }
  try {
    return factory(args, services)
  } catch (error) {
    throw new RouteDefinitionError(`Middleware alias "${spec}": ${(error as Error).message}`)
  }
}

/** The name a middleware shows under in route lists and traces. */
export function middlewareName(spec: MiddlewareSpec): string {
  return typeof spec === 'string' ? spec : spec.name || 'anonymous'
}
