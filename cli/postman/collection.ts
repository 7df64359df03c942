/**
 * A Postman collection (v2.1) from the API description (the document
 * make:openapi writes), so both say the same thing:
 *
 * 1. "Auth flow": register (a fresh address each run), log in, who am I,
 *    refresh. The tokens land in the collection variables `token` and
 *    `refresh_token`; protected requests send `Bearer {{token}}`.
 * 2. With `crud`: for each resource that has the five CRUD routes (make:crud's),
 *    create → read → list → update → delete → read again (404), carrying the
 *    created id.
 * 3. One folder per tag (route group or version) with every other operation:
 *    example bodies from the schemas; each request tests its status and
 *    `success`.
 * 4. "Log out" last: logout, then the old token is refused.
 *
 * Operations whose success is not JSON (a page, `text/html`: the example's
 * /verify-email) are left out: they are a browser's, and their tests (`success`)
 * could not hold.
 */
import type { JsonSchema } from '../schemas/to-json-schema.ts'
import type { OpenApiWarningJson } from '../contract/api-docs.ts'
import type { JsonObject } from '../openapi/document.ts'
import { exampleOf, unsureExampleFields } from './examples.ts'
import { crudResources, type CrudResource } from './crud-flow.ts'
import { expectDataEquals, expectDocumentedStatus, expectStatus, prerequestEvent, storeData, testEvent, type PostmanEvent } from './scripts.ts'

export const POSTMAN_SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json'
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/** A request of the description: its path, method and operation object. */
export interface DescribedOperation {
  path: string
  method: string
  operation: JsonObject
}

export interface PostmanRequestItem {
  name: string
  request: JsonObject
  event: PostmanEvent[]
}

export interface PostmanFolder {
  name: string
  description?: string
  item: PostmanRequestItem[]
}

export interface PostmanCollection {
  info: { name: string; description: string; schema: string }
  variable: Array<{ key: string; value: string; type: 'string' }>
  item: PostmanFolder[]
}

export interface PostmanOptions {
  /** The `baseUrl` variable's value. */
  baseUrl: string
  /** Add the CRUD flows. */
  crud?: boolean
}

export interface PostmanBuild {
  collection: PostmanCollection
  flows: string[]
  warnings: OpenApiWarningJson[]
}

/** svc's auth routes, as the flows use them. */
const AUTH = {
  register: '/api/auth/register',
  login: '/api/auth/login',
  me: '/api/auth/me',
  refresh: '/api/auth/refresh',
  logout: '/api/auth/logout',
}
/** Routes that take a token sent by mail: no collection can know it, so their tests accept any documented answer. */
const MAILED_TOKEN_PATHS = ['/api/auth/verify-email', '/api/auth/reset-password']
/** Body fields the auth routes read, filled from the collection variables. */
const AUTH_FIELDS: Record<string, string> = {
  email: '{{email}}',
  password: '{{password}}',
  password_confirmation: '{{password}}',
  refresh_token: '{{refresh_token}}',
}

export function describedOperations(document: JsonObject): DescribedOperation[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, JsonObject>>
  return Object.keys(paths)
    .sort()
    .flatMap((path) => METHODS.filter((method) => paths[path]![method] !== undefined).map((method) => ({ path, method, operation: paths[path]![method]! })))
}

/** Whether the operation's success answer is JSON (or has no body): a page (`text/html`) is not. */
function answersJson({ operation }: DescribedOperation): boolean {
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>
  const success = Object.keys(responses).find((status) => status.startsWith('2') || status.startsWith('3'))
  const content = success === undefined ? undefined : responses[success]!.content
  return content === undefined || Object.keys(content).some((type) => type === 'application/json' || type.endsWith('+json'))
}

export function buildPostmanCollection(document: JsonObject, options: PostmanOptions): PostmanBuild {
  const components = (((document.components ?? {}) as JsonObject).schemas ?? {}) as Record<string, JsonSchema>
  const operations = describedOperations(document).filter(answersJson)
  const find = (method: string, path: string) => operations.find((candidate) => candidate.method === method && candidate.path === path)
  const requestOf = (described: DescribedOperation, overrides: RequestOverrides = {}) => buildRequest(described, components, overrides)
  const folders: PostmanFolder[] = []
  const inFlows = new Set<DescribedOperation>()
  const warnings: OpenApiWarningJson[] = []
  const flows: string[] = []
  const variables = new Map<string, string>([
    ['baseUrl', options.baseUrl],
    ['token', ''],
    ['refresh_token', ''],
    ['email', ''],
    ['password', 'postman-Passw0rd'],
  ])
  const needsKey = operations.some(({ operation }) => ((operation.security ?? []) as Array<Record<string, unknown>>).some((requirement) => 'apiKeyAuth' in requirement))
  if (needsKey) variables.set('apiKey', '')

  // 1. The auth flow.
  const register = find('post', AUTH.register)
  const login = find('post', AUTH.login)
  const me = find('get', AUTH.me)
  const refresh = find('post', AUTH.refresh)
  const logout = find('post', AUTH.logout)
  const authFlow: PostmanRequestItem[] = []
  if (register !== undefined && login !== undefined) {
    const tokens = storeData({ token: 'token', refresh_token: 'refresh_token' })
    authFlow.push(
      item(register, requestOf(register, { body: { name: 'Postman User' } }), [
        prerequestEvent([
          '// A fresh address each run, so that registering never collides with an earlier run.',
          "pm.collectionVariables.set('email', 'postman-' + Date.now() + '-' + Math.floor(Math.random() * 1e6) + '@example.com');",
        ]),
        testEvent([...expectStatus(successStatus(register)), ...tokens]),
      ]),
      item(login, requestOf(login), [testEvent([...expectStatus(successStatus(login)), ...tokens])]),
    )
    if (me !== undefined) authFlow.push(item(me, requestOf(me), [testEvent([...expectStatus(200), ...expectDataEquals('email', 'email')])]))
    if (refresh !== undefined) authFlow.push(item(refresh, requestOf(refresh), [testEvent([...expectStatus(successStatus(refresh)), ...tokens])]))
    for (const used of [register, login, me, refresh]) if (used !== undefined) inFlows.add(used)
    folders.push({ name: 'Auth flow', description: 'Register a fresh user, log in, read the user, refresh the tokens: `token` and `refresh_token` are kept in the collection variables.', item: authFlow })
  }

  // 2. The CRUD flows.
  if (options.crud === true) {
    const found = crudResources(operations)
    warnings.push(...found.warnings)
    for (const resource of found.resources) {
      // A create or update whose example body may be refused would stop the flow at its first step.
      const unsure = [resource.create, resource.update].map((step) => [step, unsureBody(step, components)] as const).find(([, fields]) => fields.length > 0)
      if (unsure !== undefined) {
        warnings.push(unsureWarning(unsure[0], unsure[1], `no CRUD flow for ${resource.path}: `, ''))
        continue
      }
      folders.push(crudFlow(resource, requestOf, variables))
      flows.push(resource.path)
    }
  }

  // 3. Every other operation, by tag.
  const byTag = new Map<string, PostmanRequestItem[]>()
  for (const described of operations) {
    if (inFlows.has(described) || described === logout) continue
    const tag = (described.operation.tags as string[] | undefined)?.[0] ?? 'default'
    const items = byTag.get(tag) ?? []
    const unsure = unsureBody(described, components)
    if (unsure.length > 0) warnings.push(unsureWarning(described, unsure, '', '; its test accepts any documented answer'))
    items.push(item(described, requestOf(described), [testEvent(expectationOf(described, unsure.length > 0))]))
    byTag.set(tag, items)
  }
  const tagDescriptions = new Map(((document.tags ?? []) as Array<{ name: string; description?: string }>).map((tag) => [tag.name, tag.description]))
  for (const tag of [...byTag.keys()].sort()) {
    const description = tagDescriptions.get(tag)
    folders.push({ name: tag, ...(description !== undefined ? { description } : {}), item: byTag.get(tag)! })
  }

  // 4. Log out last: every token of the user stops working.
  if (logout !== undefined && me !== undefined && register !== undefined) {
    folders.push({
      name: 'Log out',
      description: 'Last: logging out revokes every token of the user.',
      item: [
        item(logout, requestOf(logout), [testEvent(expectStatus(successStatus(logout)))]),
        { ...item(me, requestOf(me), [testEvent(expectStatus(401))]), name: `${me.operation.summary ?? 'Me'} after logout (refused)` },
      ],
    })
  }

  const info = (document.info ?? {}) as { title?: string; description?: string }
  return {
    collection: {
      info: { name: info.title ?? 'API', description: info.description ?? '', schema: POSTMAN_SCHEMA },
      variable: [...variables].map(([key, value]) => ({ key, value, type: 'string' as const })),
      item: folders,
    },
    flows,
    warnings,
  }
}

function crudFlow(resource: CrudResource, requestOf: (described: DescribedOperation, overrides?: RequestOverrides) => JsonObject, variables: Map<string, string>): PostmanFolder {
  const variable = `${resource.name}_${resource.param}`
  variables.set(variable, '')
  const member = { [resource.param]: `{{${variable}}}` }
  const { create, read, list, update, remove } = resource
  return {
    name: `CRUD flow: ${resource.path}`,
    description: `create → read → list → update → delete → read again, carrying the created ${resource.param} in {{${variable}}}.`,
    item: [
      item(create, requestOf(create), [testEvent([...expectStatus(successStatus(create)), ...storeData({ [variable]: resource.param })])]),
      item(read, requestOf(read, { path: member }), [testEvent([...expectStatus(successStatus(read)), ...expectDataEquals(resource.param, variable)])]),
      item(list, requestOf(list), [testEvent(expectStatus(successStatus(list)))]),
      item(update, requestOf(update, { path: member }), [testEvent([...expectStatus(successStatus(update)), ...(hasBody(successStatus(update)) ? expectDataEquals(resource.param, variable) : [])])]),
      item(remove, requestOf(remove, { path: member }), [testEvent(expectStatus(successStatus(remove)))]),
      { ...item(read, requestOf(read, { path: member }), [testEvent(expectStatus(404))]), name: `${String(read.operation.summary)} after delete (404)` },
    ],
  }
}

/** The fields of the operation's example body that its validation may refuse (an app rule, a pattern too complex to sample). */
function unsureBody(described: DescribedOperation, components: Record<string, JsonSchema>): Array<{ field: string; reason: string }> {
  const schema = (((described.operation.requestBody as JsonObject | undefined)?.content as Record<string, { schema?: JsonSchema }> | undefined)?.['application/json'])?.schema
  return schema === undefined ? [] : unsureExampleFields(schema, components)
}

function unsureWarning(described: DescribedOperation, unsure: ReadonlyArray<{ field: string; reason: string }>, lead: string, consequence: string): OpenApiWarningJson {
  const fields = unsure.map(({ field, reason }) => `${field === '' ? 'the body' : field} (${reason})`).join(', ')
  return {
    method: described.method.toUpperCase() as OpenApiWarningJson['method'],
    path: described.path,
    part: 'body',
    field: unsure[0]!.field,
    message: `${lead}the example body may be refused: ${fields} cannot be satisfied from the description${consequence}. Give the field an example (valibot: v.metadata({ example: ... }))`,
  }
}

/**
 * What a request outside the flows tests: its success when the collection can bring it about, else a
 * documented answer (also when its example body may fail a rule the description cannot state).
 */
function expectationOf(described: DescribedOperation, unsureBody = false): string[] {
  const { operation, path } = described
  const needsPathValues = path.includes('{')
  const security = (operation.security ?? []) as Array<Record<string, unknown>>
  const needsKey = security.some((requirement) => 'apiKeyAuth' in requirement)
  const needsRole = operation['x-roles'] !== undefined || operation['x-scopes'] !== undefined
  if (needsPathValues || needsKey || needsRole || unsureBody || MAILED_TOKEN_PATHS.includes(path)) return expectDocumentedStatus(statusesOf(operation))
  return expectStatus(successStatus(described))
}

interface RequestOverrides {
  /** Values of path parameters (else examples from their schemas). */
  path?: Record<string, string>
  /** Body fields set over the example. */
  body?: Record<string, unknown>
}

function buildRequest(described: DescribedOperation, components: Record<string, JsonSchema>, overrides: RequestOverrides): JsonObject {
  const { path, method, operation } = described
  const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>
  const pathValues = new Map(
    parameters.filter((param) => param.in === 'path').map((param) => [param.name, overrides.path?.[param.name] ?? String(exampleOf(param.schema ?? {}, components))]),
  )
  const segments = path.split('/').filter((segment) => segment !== '').map((segment) => segment.replace(/^\{(.+)\}$/, ':$1'))
  const query = parameters
    .filter((param) => param.in === 'query')
    .map((param) => ({ key: param.name, value: String(exampleOf(param.schema ?? {}, components)), ...(param.required === true ? {} : { disabled: true }) }))
  const enabledQuery = query.filter((param) => param.disabled !== true)
  const security = (operation.security ?? []) as Array<Record<string, unknown>>
  const bearer = security.some((requirement) => 'bearerAuth' in requirement)
  const apiKey = security.some((requirement) => 'apiKeyAuth' in requirement)
  const header: Array<{ key: string; value: string }> = [{ key: 'Accept', value: 'application/json' }]
  if (apiKey) header.push({ key: 'x-api-key', value: '{{apiKey}}' })
  // A fresh key on every send: a rerun is a new request, not a replay.
  if (parameters.some((param) => param.in === 'header' && param.name === 'Idempotency-Key')) header.push({ key: 'Idempotency-Key', value: '{{$guid}}' })
  const bodySchema = (((operation.requestBody as JsonObject | undefined)?.content as Record<string, { schema?: JsonSchema }> | undefined)?.['application/json'])?.schema
  let body: JsonObject | undefined
  if (bodySchema !== undefined) {
    header.push({ key: 'Content-Type', value: 'application/json' })
    const example = exampleOf(bodySchema, components)
    const fields = typeof example === 'object' && example !== null && !Array.isArray(example) ? (example as Record<string, unknown>) : undefined
    const filled = fields === undefined ? example : { ...fields, ...authFields(fields, path), ...overrides.body }
    body = { mode: 'raw', raw: JSON.stringify(filled, null, 2), options: { raw: { language: 'json' } } }
  }
  return {
    method: method.toUpperCase(),
    header,
    url: {
      raw: `{{baseUrl}}/${segments.join('/')}${enabledQuery.length > 0 ? `?${enabledQuery.map((param) => `${param.key}=${param.value}`).join('&')}` : ''}`,
      host: ['{{baseUrl}}'],
      path: segments,
      ...(query.length > 0 ? { query } : {}),
      ...(pathValues.size > 0 ? { variable: [...pathValues].map(([key, value]) => ({ key, value })) } : {}),
    },
    ...(body !== undefined ? { body } : {}),
    auth: bearer ? { type: 'bearer', bearer: [{ key: 'token', value: '{{token}}', type: 'string' }] } : { type: 'noauth' },
    ...(typeof operation.description === 'string' ? { description: operation.description } : {}),
  }
}

/** In svc's auth routes, the address, password and refresh token of the flow's user. */
function authFields(fields: Record<string, unknown>, path: string): Record<string, unknown> {
  if (!path.startsWith('/api/auth/')) return {}
  return Object.fromEntries(Object.keys(fields).filter((name) => AUTH_FIELDS[name] !== undefined).map((name) => [name, AUTH_FIELDS[name]]))
}

function item(described: DescribedOperation, request: JsonObject, event: PostmanEvent[]): PostmanRequestItem {
  return { name: String(described.operation.summary ?? `${described.method.toUpperCase()} ${described.path}`), request, event }
}

/** The documented success status (the one 2xx/3xx response). */
export function successStatus(described: DescribedOperation): number {
  return statusesOf(described.operation).find((status) => status < 400) ?? 200
}

function statusesOf(operation: JsonObject): number[] {
  return Object.keys((operation.responses ?? {}) as JsonObject)
    .map(Number)
    .filter(Number.isInteger)
    .sort((a, b) => a - b)
}

function hasBody(status: number): boolean {
  return status !== 204 && status !== 205 && status !== 304
}
