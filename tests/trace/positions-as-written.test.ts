/**
 * Where log:trace (and its --json, which the editor's trace page reads) says a
 * request threw and sent its SQL: in the file as written. The server runs the
 * app through jiti, whose code babel shifts along a line (`export async
 * function` is rewritten), and records the stack's column as it comes; only
 * svc why mapped it. A file edited after the request has another source map:
 * its positions are given as recorded and flagged `stale`, never mapped
 * through the new code.
 */
import { utimesSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { TraceJson } from '../../cli/contract/traces.ts'
import { copyExampleApp, addWebRoutes, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { tracedGet } from '../helpers/traced-request.ts'

// A doc comment above the imports (babel moves it below them) and an exported async handler on one line.
const HANDLER = `/**
 * Greetings, with a doc comment above the imports as make:controller writes one.
 */
import * as path from 'node:path'
import type { Context } from 'svc'

export const sep: string = path.sep
export async function greet(c: Context): Promise<never> { await c.db.first('select 1 as one'); throw new Error('no greeting') }
`
const LINE = HANDLER.split('\n')[7]!

let app: AppCopy
let traceId: string
beforeAll(async () => {
  app = copyExampleApp()
  app.write('.env', 'APP_ENV=development\nAPP_DEBUG=true\nJWT_SECRET=positions-as-written-secret-0123456789abcdef\n')
  app.write('app/greet.ts', HANDLER)
  addWebRoutes(app, "  r.get('/greet', async (c) => (await import('../app/greet.ts')).greet(c))")
  traceId = await tracedGet(app.dir, '/greet')
}, 60_000)
afterAll(() => app?.remove())

it("gives the exception's location and each query's source at the call as written, in --json and in the view", async () => {
  const { trace } = await svcJson<TraceJson>(['log:trace', traceId], { cwd: app.dir })
  const file = app.path('app', 'greet.ts')
  expect(trace.exception!.location).toEqual({ file, line: 8, column: LINE.indexOf('new Error') + 1 })
  expect(trace.queries.map((query) => query.source)).toEqual([{ file, line: 8, column: LINE.indexOf('first(') + 1 }])
  // The stack's frame in the file, which the editor's page links, says the same.
  expect(trace.trace!.find((frame) => frame.includes('greet.ts'))).toContain(`${file}:8:${LINE.indexOf('new Error') + 1}`)
  const view = await runSvc(['log:trace', traceId], { cwd: app.dir })
  expect(view.stdout).toContain(`at ${file}:8:${LINE.indexOf('new Error') + 1}`)
})

it('gives a position in a file changed since the request as recorded, flagged stale, not mapped through the new code', async () => {
  const file = app.path('app', 'greet.ts')
  app.write('app/greet.ts', `// edited\n${HANDLER}`)
  utimesSync(file, new Date(), new Date(Date.now() + 60_000))
  const { trace } = await svcJson<TraceJson>(['log:trace', traceId], { cwd: app.dir })
  expect(trace.exception!.location).toMatchObject({ file, line: 8, stale: true })
  expect(trace.queries[0]!.source).toMatchObject({ file, line: 8, stale: true })
  const view = await runSvc(['log:trace', traceId], { cwd: app.dir })
  expect(view.stdout).toMatch(/greet\.ts:8:\d+ \(as recorded; the file changed since the request\)/)
})
