/**
 * A Worker whose app cannot be built (a missing setting) answers every
 * request, /health/live included, with the JSON envelope and a fix said the
 * Workers way (.dev.vars, `wrangler secret put`, [vars]), never Workers' own
 * text/plain 500 with the stack; the example refuses a production Worker
 * without APP_URL (the mails' links would point at http://127.0.0.1:8080).
 */
import { createClient } from '@libsql/client'
import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { authPlugin, createApp, createDatabase, resolveConfig } from '../../framework/index.ts'
import { stringVars, workersHandler } from '../../framework/workers/index.ts'
import blogWorker, { type Env } from '../../examples/blog/runtimes/workers.ts'

const ctx = { waitUntil: () => {}, passThroughOnException: () => {} }
const noD1 = new Proxy({}, { get: () => () => Promise.reject(new Error('no D1 in this test')) }) as Env['DB']

async function answer(handler: { fetch(request: Request, env: never, ctx: never): Promise<Response> }, env: object, path = '/health/live') {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
  try {
    const response = await handler.fetch(new Request(`http://worker.test${path}`), env as never, ctx as never)
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as { success: boolean; error: string; code: number }, logged: errors.mock.calls }
  } finally {
    errors.mockRestore()
  }
}

describe('workersHandler: an app that cannot be built', () => {
  // With a database, as on a Worker (D1): the auth plugin resolves its keys when the app is built.
  const database = createDatabase(createClient({ url: ':memory:' }))
  const handler = workersHandler<Record<string, string>>((env) => ({ app: createApp({ config: resolveConfig(stringVars(env)), database, plugins: [authPlugin()] }) }))

  it('answers the envelope, 500, naming JWT_SECRET and where a Worker gets it', async () => {
    const { status, type, body, logged } = await answer(handler, { APP_ENV: 'development' })
    expect(status).toBe(500)
    expect(type).toMatch(/^application\/json/)
    expect(body.success).toBe(false)
    expect(body.code).toBe(500)
    expect(body.error).toMatch(/^Configuration error: JWT_SECRET: is required/)
    expect(body.error).toContain('.dev.vars for `wrangler dev`')
    expect(body.error).toContain('`wrangler secret put JWT_SECRET`')
    // No .env on a Worker, no stack in the body; the whole error goes to the Worker's log.
    expect(body.error).not.toContain('to .env')
    expect(body.error).not.toMatch(/\n\s+at /)
    expect(logged).toHaveLength(1)
  })

  it('says nothing of an unexpected error but that the log has it', async () => {
    const failing = workersHandler(() => {
      throw new Error('secret internals: /srv/app.ts:12')
    })
    const { status, body } = await answer(failing, {})
    expect(status).toBe(500)
    expect(body.error).not.toContain('secret internals')
    expect(body.error).toContain('wrangler tail')
  })

  it('builds again on the next request once the setting is there', async () => {
    const env: Record<string, string> = {}
    expect((await answer(handler, env)).status).toBe(500)
    const ok = await handler.fetch(new Request('http://worker.test/health/live'), { JWT_SECRET: 'x'.repeat(16) + 'y'.repeat(16) }, ctx)
    expect(ok.status).toBe(200)
  })
})

describe('the example Worker', () => {
  it('refuses production without APP_URL: a [vars] setting, not the Host header', async () => {
    const { status, body } = await answer(blogWorker, { APP_ENV: 'production', JWT_SECRET: 'z'.repeat(40), DB: noD1, TRACES: noD1 })
    expect(status).toBe(500)
    expect(body.error).toMatch(/^Configuration error: APP_URL: is required in production/)
    expect(body.error).toContain('under [vars] in wrangler.toml')
  })

  it('a D1 binding wrangler.toml does not declare: the log names it, not "reading \'prepare\'" of undefined', async () => {
    const { status, body, logged } = await answer(blogWorker, { APP_ENV: 'development', JWT_SECRET: 'z'.repeat(40) })
    expect(status).toBe(500)
    expect(body.error).toBe("The app could not start; the Worker's log (wrangler tail) says why.")
    const error = logged[0]![1] as Error
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toBe(
      'd1Database: the binding is undefined, not a D1 database: declare it in wrangler.toml ([[d1_databases]] with binding = the name the entry reads, as env.DB) and give Miniflare the same name',
    )
  })
})

describe('the shipped wrangler.toml', () => {
  const toml = readFileSync('examples/blog/runtimes/wrangler.toml', 'utf8')
  const vars = Object.fromEntries([...toml.split(/^\[vars\]$/m)[1]!.split(/^\[\[/m)[0]!.matchAll(/^([A-Z_]+) = "(.*)"$/gm)].map((match) => [match[1]!, match[2]!]))

  it('sets what Workers need (docs/throttling.md, docs/runtimes.md), and no APP_URL that a deploy would mail', () => {
    expect(vars).toMatchObject({ APP_ENV: 'production', THROTTLE_STORE: 'database', QUEUE_CONNECTION: 'sync', MAIL_MAILER: 'console' })
    expect(vars.APP_URL).toBeUndefined()
    expect(vars.JWT_SECRET).toBeUndefined()
  })

  it('names the local D1s as `npm run start:workerd` does, so `runtime.sh wrangler-traces` reads wrangler dev\'s', () => {
    const workerd = readFileSync('scripts/workerd.mjs', 'utf8')
    for (const name of ['svc-blog', 'svc-blog-traces']) {
      expect(toml).toContain(`preview_database_id = "${name}"`)
      expect(workerd).toContain(`'${name}'`)
    }
  })
})
