/**
 * A database server out of reach (`DATABASE_URL=libsql://…` or `http://…`
 * with the server down): a 503 with Retry-After, as for a busy database, not
 * the 500 `TypeError: fetch failed` it was. The network error stays the
 * cause, for logs and traces.
 */
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createApp, DatabaseUnreachableError, defineRoutes } from 'svc'
import { createTestClient } from 'svc/testing'
import { openDatabase } from 'svc/node'
import { testConfig } from '../helpers/app.ts'

/** A port that nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('a database server out of reach', () => {
  it('a statement, a batch and a transaction fail with DatabaseUnreachableError (503), the network error as its cause', async () => {
    const db = await openDatabase({ url: `http://127.0.0.1:${await closedPort()}`, storageDir: '/nonexistent/storage', projectDir: '/nonexistent' })
    try {
      for (const attempt of [() => db.execute('select 1'), () => db.batch(['select 1', 'select 2']), () => db.transaction((tx) => tx.execute('select 1'))]) {
        const error = await attempt().then(() => undefined, (thrown: unknown) => thrown)
        expect(error).toBeInstanceOf(DatabaseUnreachableError)
        expect((error as DatabaseUnreachableError).status).toBe(503)
        expect(String(((error as Error).cause as Error).message)).toBe('fetch failed')
      }
    } finally {
      db.close()
    }
  })

  it('a route that reads it answers the 503 envelope with Retry-After', async () => {
    const database = await openDatabase({ url: `http://127.0.0.1:${await closedPort()}`, storageDir: '/nonexistent/storage', projectDir: '/nonexistent' })
    try {
      const app = createApp({ config: testConfig(), database, api: defineRoutes((r) => r.get('/posts', async (c) => (await c.db.execute('select 1 as n')).rows)) })
      const response = await createTestClient(app).get('/api/posts')
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('5')
      expect(response.body).toMatchObject({ success: false, code: 503, error: 'The database cannot be reached; try again in a moment.' })
    } finally {
      database.close()
    }
  })
})
