/**
 * `log:export --format=postman`: every redacted credential becomes a declared
 * variable. Before, only headers did (and `{{cookie}}` was not declared): a
 * password or an `api_key` query parameter stayed `[REDACTED]`, which Postman
 * sends as a wrong credential (a login then counts a failed attempt), and
 * `{{base_url}}` was `http://localhost:8080` whatever host was recorded.
 */
import { Collection } from 'postman-collection'
import { expect, it } from 'vitest'
import { buildRecord, resolveTraceConfig } from 'svc/trace'
import { postmanCollection } from '../../cli/trace/postman.ts'
import { rawTrace } from './helpers.ts'

it('redacted headers, query parameters and body fields are declared variables; base_url is the recorded host', () => {
  const record = buildRecord(
    rawTrace(1, {
      method: 'POST',
      path: '/api/auth/login',
      search: '?api_key=query-secret&page=2',
      request_headers: { host: '127.0.0.1:18455', authorization: 'Bearer abc.def.ghi', cookie: 'session=cookie-secret', 'content-type': 'application/json' },
      request_type: 'application/json',
      request_body: { kind: 'json', value: { email: 'ada@example.com', password: 'body-secret', profile: { client_secret: 'nested-secret' } }, size: 90 },
    }),
    resolveTraceConfig({}),
    null,
  )
  const collection = postmanCollection([record], 'traces')
  const text = JSON.stringify(collection.item.map((item) => item.request))
  expect(text).not.toContain('[REDACTED]')
  expect(text).not.toMatch(/secret"|abc\.def/)

  const declared = new Set(collection.variable.map((v) => v.key))
  const used = new Set([...text.matchAll(/\{\{([^}]+)\}\}/g)].map((match) => match[1]!))
  expect([...used].filter((name) => !declared.has(name))).toEqual([])
  expect(used).toEqual(new Set(['base_url', 'token', 'cookie', 'api_key', 'password', 'client_secret']))
  expect(collection.variable[0]).toEqual({ key: 'base_url', value: 'http://127.0.0.1:18455' })

  const request = new Collection(collection as never).items.idx(0)!.request
  expect(request.url.getQueryString()).toBe('api_key={{api_key}}&page=2')
  expect(JSON.parse(request.body!.raw!)).toEqual({ email: 'ada@example.com', password: '{{password}}', profile: { client_secret: '{{client_secret}}' } })
})

it("leaves out a replay's x-svc-replay-of marker: a request sent from Postman is not an svc replay", () => {
  const replay = buildRecord(
    rawTrace(1, { path: '/api/v1/posts', request_headers: { host: '127.0.0.1:18455', accept: 'application/json', 'x-svc-replay-of': 'svc_original.c2lnbmF0dXJl' } }),
    resolveTraceConfig({}),
    null,
  )
  const request = new Collection(postmanCollection([replay], 'traces') as never).items.idx(0)!.request
  expect(request.headers.all().map((header: { key: string }) => header.key)).toEqual(['accept'])
})
