/** The blog's routes through `app.fetch` (no server): the welcome page, the API fallback, routing rules. */
import { describe, expect, it } from 'vitest'
import { authPlugin, createApp, resolveConfig } from 'svc'
import { createTestClient } from 'svc/testing'
import api from '../../routes/api.ts'
import web from '../../routes/web.ts'

// The routes need the auth plugin's aliases (auth, throttle); these tests reach no route that needs the database.
const app = createApp({ config: resolveConfig({ APP_ENV: 'test' }), api, web, plugins: [authPlugin()] })
const client = createTestClient(app)

describe('the blog routes', () => {
  it('GET / names the endpoints', async () => {
    const { status, body } = await client.get('/')
    expect(status).toBe(200)
    expect(body.data.endpoints).toContain('/api/v1/posts')
  })

  it('an unknown API path gets the fallback 404 in the envelope', async () => {
    const { status, body } = await client.get('/api/v1/nothing/here')
    expect(status).toBe(404)
    expect(body).toEqual({ success: false, error: 'No API route for GET /api/v1/nothing/here', code: 404 })
  })

  it('the archive year must be four digits', async () => {
    const routes = app.routes().map((route) => `${route.method} ${route.path}`)
    expect(routes).toContain('GET /api/v1/posts/archive/{year?}')
    expect((await client.get('/api/v1/posts/archive/26')).status).toBe(404)
  })
})
