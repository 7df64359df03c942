/**
 * The names the API description gives the schemas routes declare: the names
 * they are exported under. A schema exported by one of the app's modules
 * (`export const PostInput = v.object(...)` in app/controllers/posts.ts) is
 * `components/schemas/PostInput`, referenced wherever a route uses it; svc's
 * own (the auth bodies, the token pair, the user) are named the same way.
 *
 * The app's modules are the ones loading the app imported (Node's module
 * cache, where jiti keeps them): nothing is read from source text.
 */
import { createRequire } from 'node:module'
import { sep } from 'node:path'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { AuthPage } from '../../framework/auth/pages/auth-pages.ts'
import * as authResponses from '../../framework/auth/responses.ts'
import { EmailBody, LoginBody, RefreshBody, RegisterBody, ResetPasswordBody, TokenBody } from '../../framework/auth/validation.ts'

export type SchemaNames = ReadonlyMap<StandardSchemaV1, string>

/** Component names the description itself uses (the error envelopes): an app schema exported under one gets a number. */
export const RESERVED_SCHEMA_NAMES = ['ErrorResponse', 'ValidationErrorResponse']

/** svc's own schemas, named as exported (the auth field schemas stay inline). */
const SVC_SCHEMAS: Record<string, unknown> = { ...authResponses, AuthPage, EmailBody, LoginBody, RefreshBody, RegisterBody, ResetPasswordBody, TokenBody }

/**
 * Every Standard Schema exported by svc's auth modules and by the app's
 * loaded modules (under `appDir`, not node_modules), by name. Deterministic:
 * svc's first, then the app's by file path and export name; a schema
 * exported twice keeps its first name, and a name taken by another schema
 * gets a number (`ListQuery2`).
 */
export function schemaNames(appDir: string): SchemaNames {
  const names = new Map<StandardSchemaV1, string>()
  const taken = new Set<string>(RESERVED_SCHEMA_NAMES)
  const add = (exports: Record<string, unknown>) => {
    for (const name of Object.keys(exports).sort()) {
      const value = exports[name]
      if (!isStandardSchema(value) || names.has(value)) continue
      const base = name.replace(/[^A-Za-z0-9._-]/g, '_')
      let unique = base
      for (let n = 2; taken.has(unique); n++) unique = `${base}${n}`
      taken.add(unique)
      names.set(value, unique)
    }
  }
  add(SVC_SCHEMAS)
  for (const exports of appModuleExports(appDir)) add(exports)
  return names
}

function appModuleExports(appDir: string): Array<Record<string, unknown>> {
  const cache = createRequire(import.meta.url).cache
  const prefix = appDir.endsWith(sep) ? appDir : `${appDir}${sep}`
  return Object.keys(cache)
    .filter((file) => file.startsWith(prefix) && !file.includes(`${sep}node_modules${sep}`))
    .sort()
    .flatMap((file) => {
      const exports: unknown = cache[file]?.exports
      return typeof exports === 'object' && exports !== null ? [exports as Record<string, unknown>] : []
    })
}

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<StandardSchemaV1>)['~standard']?.validate === 'function'
  )
}
