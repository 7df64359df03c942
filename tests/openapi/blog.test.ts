/**
 * `svc make:openapi` on the example app (a copy of examples/blog), run
 * in-process as a user runs it: the golden document, both validators, the
 * same bytes twice, YAML, --output, --json. Then the response contract: a
 * request to every operation of the real app (its routes, its database),
 * each answer checked against the documented schema of its status with Ajv,
 * and the error answers too (401, 403, 404, 400, 413, 415, 422).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../cli/openapi/document.ts'
import { describedOperations, type DescribedOperation } from '../../cli/postman/collection.ts'
import { exampleOf } from '../../cli/postman/examples.ts'
import { projectTestApp, type ProjectTestApp } from '../../cli/testing/project-app.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { documentValidator, validateWithParsers } from '../helpers/openapi.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

/** The example's pages the auth mails link to (HTML; docs/authentication.md). */
const PAGES = ['/verify-email', '/reset-password']

let copy: AppCopy
let text: string
let document: JsonObject

beforeAll(async () => {
  copy = copyExampleApp('blog')
  const made = await runSvc(['make:openapi'], { cwd: copy.dir })
  expect(made, made.stderr).toMatchObject({ exitCode: 0 })
  text = copy.read('docs', 'openapi.json')
  document = JSON.parse(text) as JsonObject
})

afterAll(() => copy?.remove())

describe('make:openapi on the example app', () => {
  it('writes docs/openapi.json in the app folder and says what it holds; the golden document is unchanged', async () => {
    const made = await runSvc(['make:openapi'], { cwd: copy.dir })
    expect(made.stdout).toBe('Wrote docs/openapi.json\nOpenAPI 3.0.3: 21 paths, 25 operations, 18 schemas.\n')
    // The one thing the blog does that OpenAPI cannot say: /posts/{slug} behind /posts/{id}.
    expect(made.stderr).toContain('warning: GET /api/v1/posts/{slug}: OpenAPI cannot tell this route from GET /api/v1/posts/{id} (showPost)')
    await expect(text).toMatchFileSnapshot('./golden/blog.openapi.json')
  })

  it('both validators accept it', async () => {
    expect(await validateWithParsers(document)).toEqual([])
  })

  it('running it twice gives the same bytes', async () => {
    await runSvc(['make:openapi'], { cwd: copy.dir })
    expect(copy.read('docs', 'openapi.json')).toBe(text)
  })

  it('--json lists what was written, the counts and the warnings (the contract document)', async () => {
    const result = await svcJson(['make:openapi', '--json'], { cwd: copy.dir })
    expect(result).toMatchObject({ written: ['docs/openapi.json'], openapi: '3.0.3', paths: 21, operations: 25 })
    expect(result.schemas).toEqual(expect.arrayContaining(['Post', 'PostInput', 'TokenPair', 'User', 'ErrorResponse']))
    expect(result.warnings).toEqual([{ method: 'GET', path: '/api/v1/posts/{slug}', part: 'path', field: '', message: expect.stringContaining('one operation') }])
  })

  it('--yaml writes the same document as YAML; --output writes where it says (relative to the current folder)', async () => {
    const yaml = await runSvc(['make:openapi', '--yaml'], { cwd: copy.dir })
    expect(yaml.stdout).toContain('Wrote docs/openapi.yaml')
    expect(parseYaml(copy.read('docs', 'openapi.yaml'))).toEqual(document)
    const output = await runSvc(['make:openapi', '--output', 'api.yml', '--cwd', copy.dir], { cwd: join(copy.dir, 'routes') })
    expect(output.stdout).toContain('Wrote routes/api.yml')
    expect(parseYaml(readFileSync(join(copy.dir, 'routes', 'api.yml'), 'utf8'))).toEqual(document)
    const server = await svcJson(['make:openapi', '--output', 'with-server.json', '--server', 'https://api.example.com', '--json'], { cwd: copy.dir })
    expect(server.written).toEqual(['with-server.json'])
    expect(JSON.parse(copy.read('with-server.json')).servers).toEqual([{ url: 'https://api.example.com' }])
  })

  it('a typo is a clear error, and nothing is written', async () => {
    const typo = await runSvc(['make:openapi', '--with-swager'], { cwd: copy.dir })
    expect(typo.exitCode).not.toBe(0)
    expect(typo.stderr).toContain('did you mean --with-swagger?')
  })
})

describe('the response contract: every operation of the example answers as documented', () => {
  let testApp: ProjectTestApp
  const answered = new Map<string, number[]>()
  let check: (described: DescribedOperation, response: Response) => Promise<unknown>

  beforeAll(async () => {
    testApp = await projectTestApp({ root: copy.dir, env: { AUTH_REGISTER_THROTTLE: '1000,1' } })
    await testApp.db.execute("insert into posts (title, slug, body, published_at) values ('One', 'one', 'First.', '2026-01-15T10:00:00.000Z'), ('Two', 'two', 'Second.', null)")
    const validate = documentValidator(document)
    const traceId = new RegExp(((document.components as { headers: Record<string, { schema: { pattern: string } }> }).headers['X-Service-Trace-Id']!.schema.pattern))
    check = async (described, response) => {
      const body = await response.text()
      const key = `${described.method.toUpperCase()} ${described.path}`
      answered.set(key, [...(answered.get(key) ?? []), response.status])
      const documented = (described.operation.responses as Record<string, JsonObject>)[String(response.status)]
      expect(documented, `${key} answered ${response.status}, which it does not document: ${body}`).toBeDefined()
      expect(response.headers.get('x-service-trace-id')).toMatch(traceId)
      const content = documented!.content as Record<string, { schema: unknown }> | undefined
      // A page (the example's /verify-email): the type it documents, a text body.
      if (content?.['text/html'] !== undefined) {
        expect(response.headers.get('content-type'), `${key} ${response.status}`).toMatch(/^text\/html\b/)
        expect(body).toMatch(/^<!doctype html>/)
        return undefined
      }
      const schema = content?.['application/json']?.schema
      if (schema === undefined) {
        expect(body, `${key} ${response.status} documents no body`).toBe('')
        return undefined
      }
      const json = JSON.parse(body) as unknown
      expect(validate(schema, json), `${key} ${response.status}: ${body}`).toEqual([])
      for (const header of Object.keys((documented!.headers ?? {}) as object)) {
        // Idempotent-Replayed is sent only on a replay (a second request with the same key).
        if (header !== 'WWW-Authenticate' && header !== 'Idempotent-Replayed') expect(response.headers.has(header), `${key} ${response.status} documents ${header}`).toBe(true)
      }
      return json
    }
  })

  afterAll(() => testApp?.close())

  const operations = () => describedOperations(document)
  const send = (described: DescribedOperation, init: { token?: string; body?: unknown; raw?: string; type?: string; params?: Record<string, string>; query?: string } = {}) => {
    let path = described.path
    for (const param of (described.operation.parameters ?? []) as Array<{ name: string; in: string; schema: JsonObject }>) {
      if (param.in !== 'path') continue
      const components = (document.components as { schemas: Record<string, JsonObject> }).schemas
      path = path.replace(`{${param.name}}`, init.params?.[param.name] ?? String(exampleOf(param.schema, components)))
    }
    const headers: Record<string, string> = {}
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
    // A documented Idempotency-Key header (the idempotent alias): a fresh key, as a client sends.
    for (const param of (described.operation.parameters ?? []) as Array<{ name: string; in: string; required?: boolean }>) {
      if (param.in === 'header' && param.name === 'Idempotency-Key' && param.required === true) headers['idempotency-key'] = crypto.randomUUID()
    }
    const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body))
    if (body !== undefined) headers['content-type'] = init.type ?? 'application/json'
    return testApp.app.fetch(new Request(`http://localhost${path}${init.query ?? ''}`, { method: described.method.toUpperCase(), headers, body }))
  }
  const find = (method: string, path: string) => operations().find((candidate) => candidate.method === method && candidate.path === path)!
  const bodyExample = (described: DescribedOperation) => {
    const schema = ((described.operation.requestBody as { content: Record<string, { schema: JsonObject }> } | undefined)?.content['application/json'])?.schema
    return schema === undefined ? undefined : (exampleOf(schema, (document.components as { schemas: Record<string, JsonObject> }).schemas) as Record<string, unknown>)
  }

  it('each operation, with the data it needs, answers a documented status with a body that matches its schema', async () => {
    const password = 'contract-Passw0rd'
    const registered = (await check(find('post', '/api/auth/register'), await send(find('post', '/api/auth/register'), {
      body: { name: 'Contract', email: 'contract@example.com', password, password_confirmation: password },
    }))) as { data: { token: string; refresh_token: string } }
    let session = registered.data
    let ownPost: string | undefined
    const admin = await testApp.tokenFor({ role: 'admin' })
    const leaving = await testApp.tokenFor({ email: 'leaving@example.test' })

    for (const described of operations()) {
      if (described.path === '/api/auth/register') continue
      const { operation } = described
      const roles = operation['x-roles'] as string[] | undefined
      const token = described.path === '/api/auth/logout' ? leaving : roles?.includes('admin') ? admin : operation.security !== undefined ? session.token : undefined
      const example = bodyExample(described)
      const body = example && { ...example, ...pick({ email: 'contract@example.com', password, password_confirmation: password, refresh_token: session.refresh_token, token: 'not-a-mailed-token' }, Object.keys(example)) }
      // DELETE takes the second post: the first is read after it. PUT takes the session's own post (only its author edits it).
      const params = described.method === 'delete' ? { id: '2' } : described.method === 'put' && ownPost !== undefined ? { id: ownPost } : undefined
      // The pages the mails link to take the mail's token from the query string.
      const query = PAGES.includes(described.path) ? '?token=not-a-mailed-token' : undefined
      const json = (await check(described, await send(described, { token, body, params, query }))) as { data?: { id?: number; token?: string; refresh_token?: string } } | undefined
      if (json?.data?.refresh_token !== undefined) session = json.data as typeof session
      if (described.method === 'post' && described.path === '/api/v1/posts') ownPost = String(json?.data?.id)
    }

    expect(Object.fromEntries(answered)).toEqual({
      'POST /api/auth/register': [201],
      'POST /api/auth/forgot-password': [200],
      'POST /api/auth/login': [200],
      'POST /api/auth/logout': [200],
      'GET /api/auth/me': [200],
      'POST /api/auth/refresh': [200],
      'POST /api/auth/reset-password': [422],
      'POST /api/auth/verify-email': [422],
      'POST /api/auth/verify-email/resend': [200],
      'GET /api/v1/posts': [200],
      'POST /api/v1/posts': [201],
      'GET /api/v1/posts/archive': [200],
      'GET /api/v1/posts/archive/{year}': [200],
      'GET /api/v1/posts/drafts': [200],
      'GET /api/v1/posts/{id}': [200],
      'PUT /api/v1/posts/{id}': [200],
      'DELETE /api/v1/posts/{id}': [200],
      'GET /api/v2/posts': [200],
      'POST /api/v2/posts': [201],
      'GET /api/v2/posts/{id}': [200],
      'GET /health/live': [200],
      'GET /health/ready': [200],
      'GET /': [200],
      'GET /verify-email': [200],
      'GET /reset-password': [200],
    })
  })

  it('the error answers match their documented schemas too: no token, the wrong role, a missing post, a bad body or query', async () => {
    answered.clear()
    const user = await testApp.tokenFor()
    for (const described of operations()) {
      if (described.operation.security !== undefined) await check(described, await send(described, {}))
      if (described.operation.requestBody !== undefined) {
        const token = described.operation['x-roles'] === undefined ? user : await testApp.tokenFor({ role: 'admin' })
        await check(described, await send(described, { token, body: [] }))
        await check(described, await send(described, { token, raw: '{"title":', params: { id: '1' } }))
        await check(described, await send(described, { token, raw: 'title=x', type: 'application/x-www-form-urlencoded', params: { id: '1' } }))
        await check(described, await send(described, { token, raw: JSON.stringify({ title: 'x'.repeat(1024 * 1024) }), params: { id: '1' } }))
      }
    }
    await check(find('delete', '/api/v1/posts/{id}'), await send(find('delete', '/api/v1/posts/{id}'), { token: user }))
    // Someone else's post (this one has no author: only admins edit it).
    await check(find('put', '/api/v1/posts/{id}'), await send(find('put', '/api/v1/posts/{id}'), { token: user, body: { title: 'Not mine' }, params: { id: '1' } }))
    expect(answered.get('PUT /api/v1/posts/{id}')).toContain(403)
    await check(find('get', '/api/v1/posts/{id}'), await send(find('get', '/api/v1/posts/{id}'), { params: { id: '999' } }))
    await check(find('get', '/api/v1/posts'), await send(find('get', '/api/v1/posts'), { query: '?page=0' }))
    for (const page of PAGES) await check(find('get', page), await send(find('get', page)))
    const seen = new Set([...answered.values()].flat())
    expect([...seen].sort()).toEqual([400, 401, 403, 404, 413, 415, 422])
  })
})

function pick(values: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in values).map((key) => [key, values[key]]))
}
