/**
 * The OpenAPI 3.0.3 description of an app, from its compiled route table
 * (`app.routes()`, the table `serve` answers from) and the schemas the
 * routes declare. Pure: the same routes give the same document.
 *
 * - Paths: `{p}` as in OpenAPI; an optional `{p?}` gives two paths (OpenAPI
 *   has no optional path parameter); constraints become `pattern`s. Two
 *   routes OpenAPI cannot tell apart (`/posts/{id}` then `/posts/{slug}`)
 *   are documented as one operation, with a warning.
 * - Responses: the success envelope around the declared `data`, and every
 *   error answer known from the route (route-facts.ts), each described.
 * - Security: `bearerAuth` (JWT) for `auth`, `apiKeyAuth` for `apikey`;
 *   requirement scopes stay empty (3.0.3), roles go in `x-roles`.
 */
import { AUTH_PAGE_TAGS } from '../../framework/auth/pages/auth-pages.ts'
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENT_REPLAYED_HEADER, MAX_IDEMPOTENCY_HEADER_LENGTH } from '../../framework/idempotency/index.ts'
import { parseSegments } from '../../framework/router/path-grammar.ts'
import type { RouteDescription, RouteMethod } from '../../framework/router/types.ts'
import type { OpenApiWarningJson } from '../contract/api-docs.ts'
import type { JsonSchema } from '../schemas/to-json-schema.ts'
import { COMPONENT_REF, SchemaComponents } from './components.ts'
import { errorCases, RATE_LIMIT_HEADERS, routeAccess, type RouteAccess } from './route-facts.ts'
import type { SchemaNames } from './schema-names.ts'

export type JsonObject = { [key: string]: unknown }

export const OPENAPI_VERSION = '3.0.3'
const JSON_TYPE = 'application/json'
const ANY_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 205: 'Reset Content', 304: 'Not Modified' }

export type OpenApiWarning = OpenApiWarningJson

export interface OpenApiOptions {
  title: string
  version: string
  /** The `servers` URL; `/` (the origin serving the document) by default. */
  server?: string
}

export interface OpenApiBuild {
  document: JsonObject
  warnings: OpenApiWarning[]
}

interface Operation {
  path: string
  method: string
  object: JsonObject
  /** The route whose shape decided the path (for the fall-through note). */
  first: RouteDescription
}

export function buildOpenApi(routes: readonly RouteDescription[], names: SchemaNames, options: OpenApiOptions): OpenApiBuild {
  const components = new SchemaComponents(names)
  const warnings: OpenApiWarning[] = []
  const operations = new Map<string, Operation>()
  /** Path shape (`/api/v1/posts/{}`) => the parameter names of the first path with that shape. */
  const shapes = new Map<string, string[]>()
  const tags = new Map<string, string>()
  let usesApiKey = false

  for (const route of routes) {
    const warn = (part: OpenApiWarning['part'], field: string, message: string) => warnings.push({ method: route.method, path: route.path, part, field, message })
    const convert = (part: 'body' | 'query' | 'response') => {
      const schema = route.schemas[part]
      if (schema === null) return undefined
      const result = components.schema(schema, part === 'response' ? 'output' : 'input', { inline: part === 'query' })
      for (const warning of result.warnings) warn(part, warning.field, warning.message)
      return result.schema ?? {}
    }
    const access = routeAccess(route)
    usesApiKey ||= access.apiKey
    const tag = tagOf(route)
    if (!tags.has(tag)) tags.set(tag, tagDescription(route, tag))
    const body = convert('body')
    const query = convert('query')
    const data = convert('response')
    const queryParameters = query === undefined ? [] : queryParams(query, (message) => warn('query', '', message))

    for (const variant of pathVariants(route)) {
      const shape = variant.segments.map((segment) => (segment.kind === 'param' ? '{}' : segment.value)).join('/')
      const own = variant.params.map((param) => param.name)
      const names = shapes.get(shape) ?? own
      shapes.set(shape, names)
      const path = `/${renameParams(variant.segments, names).join('/')}`
      for (const method of methodsOf(route.method)) {
        const key = `${method} ${path}`
        const known = operations.get(key)
        // Fresh objects for each operation: merging a later route into one must not change another.
        const parameters = [...pathParams(variant.params, names), ...queryParameters.map((param) => ({ ...param })), ...idempotencyParams(access)]
        const responses = responsesOf(route, access, data, variant.params)
        if (known !== undefined) {
          mergeInto(known, route, parameters, responses)
          warn('path', '', `OpenAPI cannot tell this route from ${describeRoute(known.first)}, tried before it: both are one operation, ${method.toUpperCase()} ${path}`)
          continue
        }
        if (names.some((name, index) => name !== own[index])) {
          warn('path', '', `documented under ${path}: OpenAPI cannot have paths that differ only in parameter names`)
        }
        operations.set(key, {
          path,
          method,
          first: route,
          object: {
            operationId: operationId(method, path),
            summary: summaryOf(route, method),
            description: descriptionOf(route, access),
            tags: [tag],
            ...(parameters.length > 0 ? { parameters } : {}),
            ...(body !== undefined ? { requestBody: { required: true, content: { [JSON_TYPE]: { schema: body } } } } : {}),
            responses,
            ...securityOf(access),
          },
        })
      }
    }
  }

  components.finish()
  const paths: Record<string, Record<string, JsonObject>> = {}
  for (const operation of operations.values()) (paths[operation.path] ??= {})[operation.method] = operation.object
  ensureUniqueOperationIds(paths)

  return {
    document: {
      openapi: OPENAPI_VERSION,
      info: {
        title: options.title,
        version: options.version,
        description: [
          'Generated by `svc make:openapi` from the route table and the schemas the routes declare.',
          'Successful answers are the envelope `{ success: true, message?, data, meta? }`; errors are `{ success: false, error, code }`.',
          'Every answer carries `X-Service-Trace-Id` (`svc log:trace <id>` shows the request).',
        ].join('\n\n'),
      },
      servers: [{ url: options.server ?? '/' }],
      tags: [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, description]) => ({ name, description })),
      paths,
      components: {
        schemas: { ...components.components(), ...ENVELOPE_SCHEMAS },
        headers: HEADERS,
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'The access token from POST /api/auth/login (or register, refresh): `Authorization: Bearer <token>`. Operations that need a role say so in `x-roles`.',
          },
          ...(usesApiKey
            ? { apiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API_KEY, or a key made by `svc make:apikey` (its scopes in `x-scopes`).' } }
            : {}),
        },
      },
    },
    warnings: warnings.sort(compareWarnings),
  }
}

// ---------------------------------------------------------------- paths

interface PathVariant {
  segments: ReturnType<typeof parseSegments>
  params: Array<RouteDescription['params'][number]>
}

/** `/a/{b?}/{c?}` => `/a`, `/a/{b}`, `/a/{b}/{c}`. */
function pathVariants(route: RouteDescription): PathVariant[] {
  const segments = parseSegments(route.path)
  const optional = segments.filter((segment) => segment.kind === 'param' && segment.optional).length
  const variants: PathVariant[] = []
  for (let kept = 0; kept <= optional; kept++) {
    const cut = segments.slice(0, segments.length - (optional - kept))
    const names = cut.flatMap((segment) => (segment.kind === 'param' ? [segment.name] : []))
    variants.push({ segments: cut, params: route.params.filter((param) => names.includes(param.name)) })
  }
  return variants
}

function renameParams(segments: PathVariant['segments'], names: string[]): string[] {
  let index = 0
  return segments.map((segment) => (segment.kind === 'param' ? `{${names[index++]}}` : segment.value))
}

function methodsOf(method: RouteMethod): string[] {
  return method === 'ANY' ? [...ANY_METHODS] : [method.toLowerCase()]
}

/** The Idempotency-Key header of a route behind the `idempotent` alias (docs/idempotency.md). */
function idempotencyParams(access: RouteAccess): JsonObject[] {
  if (access.idempotency === undefined) return []
  return [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: access.idempotency === 'required',
      description: 'A unique key per intended request (a UUID): a retry with the same key and body gets the first answer again, with Idempotent-Replayed: true.',
      // The grammar the middleware checks (framework/idempotency/key.ts): a quoted key of 255 characters is 257 long, more with escapes.
      schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_HEADER_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
    },
  ]
}

function pathParams(params: PathVariant['params'], names: string[]): JsonObject[] {
  return params.map((param, index) => ({
    name: names[index],
    in: 'path',
    required: true,
    ...(names[index] !== param.name ? { description: `The route names it {${param.name}}.` } : {}),
    schema: { type: 'string', ...(param.pattern !== null ? { pattern: param.pattern } : {}) },
  }))
}

/** The query schema's fields as parameters (an `allOf` of objects is one object). */
function queryParams(schema: JsonSchema, warn: (message: string) => void): JsonObject[] {
  const parts = Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : [schema]
  const parameters: JsonObject[] = []
  for (const part of parts) {
    if (part.type !== 'object' || typeof part.properties !== 'object') {
      warn('the query schema is not an object of fields: its parameters cannot be listed')
      continue
    }
    const required = Array.isArray(part.required) ? (part.required as string[]) : []
    for (const [name, field] of Object.entries(part.properties as Record<string, JsonSchema>)) {
      const { description, ...fieldSchema } = field
      parameters.push({
        name,
        in: 'query',
        required: required.includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: fieldSchema,
      })
    }
  }
  return parameters.sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0))
}

// ---------------------------------------------------------------- responses

function responsesOf(route: RouteDescription, access: RouteAccess, data: JsonSchema | undefined, params: PathVariant['params']): Record<string, JsonObject> {
  const { status, envelope } = route.responses
  const throttled = access.throttles.length > 0
  // A replay is the stored success with Idempotent-Replayed: true (docs/idempotency.md); errors are never stored.
  const replayed = access.idempotency !== undefined ? [IDEMPOTENT_REPLAYED_HEADER] : []
  const successHeaders = headerRefs(['X-Service-Trace-Id', ...(throttled ? RATE_LIMIT_HEADERS : []), ...replayed])
  const responses: Record<string, JsonObject> = {}
  const declared = data ?? { description: 'Not declared: the route has no `.response()` schema.' }
  responses[String(status)] =
    status === 204 || status === 205 || status === 304
      ? { description: STATUS_TEXT[status] ?? 'Success', headers: successHeaders }
      : {
          description: STATUS_TEXT[status] ?? 'Success',
          headers: successHeaders,
          content: { [route.responses.contentType ?? JSON_TYPE]: { schema: envelope ? successEnvelope(declared) : declared } },
        }
  for (const error of errorCases({ ...route, params }, access)) {
    responses[String(error.status)] = {
      description: error.reasons.join(' '),
      headers: headerRefs(['X-Service-Trace-Id', ...error.headers]),
      content: { [JSON_TYPE]: { schema: { $ref: `${COMPONENT_REF}${error.status === 422 ? 'ValidationErrorResponse' : 'ErrorResponse'}` } } },
    }
  }
  responses['500'] = {
    description: 'An unexpected error (logged with the trace id; details only when APP_DEBUG is on).',
    headers: headerRefs(['X-Service-Trace-Id']),
    content: { [JSON_TYPE]: { schema: { $ref: `${COMPONENT_REF}ErrorResponse` } } },
  }
  return responses
}

function successEnvelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'data'],
    properties: {
      success: { type: 'boolean', enum: [true] },
      message: { type: 'string' },
      data,
      meta: { type: 'object', additionalProperties: true, description: 'What describes `data` (a list: its page).' },
    },
  }
}

function headerRefs(names: string[]): Record<string, JsonObject> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))
}

const ENVELOPE_SCHEMAS: Record<string, JsonSchema> = {
  ErrorResponse: {
    type: 'object',
    description: 'The error envelope; some errors add fields (a lock: `retry_after`; a missing scope: `missing_scopes`).',
    required: ['success', 'error', 'code'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: { type: 'string', description: 'What went wrong, for people.' },
      code: { type: 'integer', description: 'The HTTP status.' },
    },
    additionalProperties: true,
  },
  ValidationErrorResponse: {
    description: 'A 422: the messages of each field that failed (one per field).',
    allOf: [
      { $ref: `${COMPONENT_REF}ErrorResponse` },
      {
        type: 'object',
        required: ['errors'],
        properties: { errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
      },
    ],
  },
}

const HEADERS: Record<string, JsonObject> = {
  'X-Service-Trace-Id': {
    description: "The request's trace id: `svc log:trace <id>` shows it.",
    schema: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]{0,15}_[0-9a-f]+$' },
  },
  'WWW-Authenticate': { description: 'The bearer challenge (RFC 6750).', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key (a replay); absent on the first.',
    schema: { type: 'string', enum: ['true'] },
  },
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
}

// ---------------------------------------------------------------- merging, naming, describing

/** A route tried after `known` for the same method and path shape: one operation answering both. */
function mergeInto(known: Operation, route: RouteDescription, parameters: JsonObject[], responses: Record<string, JsonObject>): void {
  const operation = known.object
  operation.description = `${String(operation.description)}\n\nWhen the route above does not match, ${describeRoute(route)} answers.`
  const knownParams = (operation.parameters ?? []) as JsonObject[]
  for (const param of parameters) {
    const same = knownParams.find((candidate) => candidate.name === param.name && candidate.in === param.in)
    if (same === undefined) {
      knownParams.push(param)
      continue
    }
    const patterns = [same.schema, param.schema].map((schema) => (schema as JsonSchema).pattern).filter((pattern) => pattern !== undefined)
    if (patterns.length === 2 && patterns[0] !== patterns[1]) {
      same.schema = { type: 'string', anyOf: patterns.map((pattern) => ({ pattern })) }
    } else if (patterns.length < 2) {
      same.schema = { type: 'string' }
    }
  }
  if (knownParams.length > 0) operation.parameters = knownParams
  const knownResponses = operation.responses as Record<string, JsonObject>
  for (const [status, response] of Object.entries(responses)) {
    const existing = knownResponses[status]
    if (existing === undefined) {
      knownResponses[status] = response
      continue
    }
    if (existing.description !== response.description) existing.description = `${String(existing.description)} ${String(response.description)}`
    const mine = (existing.content as Record<string, JsonObject> | undefined)?.[JSON_TYPE]
    const theirs = (response.content as Record<string, JsonObject> | undefined)?.[JSON_TYPE]
    if (mine !== undefined && theirs !== undefined && JSON.stringify(mine.schema) !== JSON.stringify(theirs.schema)) {
      mine.schema = { oneOf: [mine.schema, theirs.schema] }
    }
  }
}

function describeRoute(route: RouteDescription): string {
  return `${route.method} ${route.path}${route.handler === 'anonymous' ? '' : ` (${route.handler})`}`
}

/** `get` + `/api/v1/posts/{id}` => `getApiV1PostsById`: stable while the route's method and path are. */
export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '')
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment)
      return param === null ? words_(segment) : ['By', ...words_(param[1]!)]
    })
  return `${method}${words.length === 0 ? 'Root' : words.map(capitalize).join('')}`
}

function words_(text: string): string[] {
  return text.split(/[^A-Za-z0-9]+/).filter((word) => word !== '')
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}

function ensureUniqueOperationIds(paths: Record<string, Record<string, JsonObject>>): void {
  const seen = new Set<string>()
  for (const path of Object.keys(paths).sort()) {
    for (const method of Object.keys(paths[path]!).sort()) {
      const operation = paths[path]![method]!
      let id = String(operation.operationId)
      for (let n = 2; seen.has(id); n++) id = `${String(operation.operationId)}${n}`
      seen.add(id)
      operation.operationId = id
    }
  }
}

/** `listPostsWithMeta` => `List posts with meta`; an anonymous handler: `GET /path`. */
function summaryOf(route: RouteDescription, method: string): string {
  if (route.handler === 'anonymous' || route.handler === '') return `${method.toUpperCase()} ${route.path}`
  const words = route.handler.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase().trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

function descriptionOf(route: RouteDescription, access: RouteAccess): string {
  const lines = [`Handler \`${route.handler}\`${route.middleware.length > 0 ? `, middleware ${route.middleware.map((name) => `\`${name}\``).join(', ')}` : ''}.`]
  if (access.bearer) {
    lines.push(
      access.roles.length > 0
        ? `Needs a bearer token of a user whose role is ${access.roles.map((role) => `\`${role}\``).join(' or ')} (\`x-roles\`).`
        : 'Needs a bearer token (POST /api/auth/login).',
    )
  }
  if (access.apiKey) {
    lines.push(access.scopes.length > 0 ? `Needs an API key holding ${access.scopes.map((scope) => `\`${scope}\``).join(' and ')} (\`x-scopes\`).` : 'Needs the API key (`x-api-key`).')
  }
  for (const { maxAttempts, decayMinutes } of access.throttles) lines.push(`Throttled: ${maxAttempts} requests per ${decayMinutes} minute${decayMinutes === 1 ? '' : 's'}.`)
  return lines.join('\n\n')
}

function securityOf(access: RouteAccess): JsonObject {
  if (!access.bearer && !access.apiKey) return {}
  const requirement: Record<string, string[]> = {}
  if (access.bearer) requirement.bearerAuth = []
  if (access.apiKey) requirement.apiKeyAuth = []
  return {
    security: [requirement],
    ...(access.roles.length > 0 ? { 'x-roles': access.roles } : {}),
    ...(access.scopes.length > 0 ? { 'x-scopes': access.scopes } : {}),
  }
}

/** The route's group (`v1`, `auth`, `v2/posts`), else the first segment of its path (`health`). */
function tagOf(route: RouteDescription): string {
  if (route.group !== null) return route.group.replace(/^\/+/, '')
  const page = route.source === null ? AUTH_PAGE_TAGS[route.handler] : undefined
  if (page !== undefined) return page
  const segments = parseSegments(route.path.replace(/^\/api(?=\/|$)/, ''))
  const first = segments[0]
  return first !== undefined && first.kind === 'static' ? first.value : 'web'
}

function tagDescription(route: RouteDescription, tag: string): string {
  if (route.version !== null && tag === `v${route.version}`) return `Version ${route.version} of the API.`
  const builtin = BUILTIN_TAGS[tag]
  if (builtin !== undefined && route.source === null) return builtin
  return `Routes of the ${tag} group.`
}

const BUILTIN_TAGS: Record<string, string> = {
  auth: 'Authentication (built into svc): register, log in, refresh and revoke tokens, verify the email address, reset the password.',
  health: 'Health probes (built into svc): liveness, and readiness with every check.',
  '.well-known': 'The JSON Web Key Set that verifies RS256 tokens (built into svc).',
  'verify-email': 'The page the verification mail links to (built into svc): it posts the token to POST /api/auth/verify-email.',
  'reset-password': 'The page the password reset mail links to (built into svc): it posts the new password to POST /api/auth/reset-password.',
}

function compareWarnings(a: OpenApiWarning, b: OpenApiWarning): number {
  const keyA = `${a.path}\0${a.method}\0${a.part}\0${a.field}\0${a.message}`
  const keyB = `${b.path}\0${b.method}\0${b.part}\0${b.field}\0${b.message}`
  return keyA < keyB ? -1 : keyA > keyB ? 1 : 0
}
