/**
 * Text holding a NUL character (U+0000). libSQL stores it whole but reads it
 * back cut at the NUL, so a PUT of "abc\u0000def" answered 200 and then read
 * back "abc". The database module refuses such an argument before sending
 * the statement (NulTextError, 422 in the envelope), whatever let it through
 * (a hand-written schema, `c.body()` with none); what svc stores itself
 * without validating it (traces, a failed job's error, a task's error) is
 * still stored.
 *
 * A number no column can hold (NaN, Infinity, a bigint beyond 64 bits) made
 * libSQL throw a RangeError, a 500: `Number(c.params.id)` on `/notes/abc`.
 * It is refused the same way (NumberArgumentError, 422).
 */
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, defineRoutes, everyMinute, migrate, NulTextError, NumberArgumentError, runSchedule, type Database, type QueryRecord } from 'svc'
import { createQueue, databaseQueueDriver, defineJob, jobRegistry, queueMigration, runWorker, type JobDefinition } from '../../framework/queue/index.ts'
import { testConfig } from '../helpers/app.ts'
import { startServer, type RunningServer } from '../helpers/server.ts'
import { recordOf, request, tracedApp } from '../trace/helpers.ts'
import { openTestDatabase, type TestDatabase } from './helpers.ts'

const NUL = 'abc\u0000def'
const NUMBER_REFUSED = /^A number the database cannot hold \(NaN, Infinity, or an integer beyond 64 bits\) was given to a query\. Check the number where it comes from the request/
const REFUSED = /^Text containing a NUL character \(U\+0000\) cannot be stored: the database would read it back cut at the NUL\. Refuse it in the request schema with withoutNul\(\) or visibleText\(\) from svc, or store the bytes as a blob/

let t: TestDatabase
let db: Database
beforeAll(async () => {
  t = await openTestDatabase()
  db = t.db
  await db.execute('create table notes (id integer primary key, body text not null, data blob)')
})
afterAll(() => t.close())

const bodies = async () => (await db.all<{ body: string }>('select body from notes order by id')).map((row) => row.body)

describe('the database module', () => {
  it('refuses a text argument holding a NUL, in execute, batch and transaction, writing nothing', async () => {
    await db.execute('delete from notes')
    const refused = await db.execute('insert into notes (body) values (?)', [NUL]).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(NulTextError)
    expect(refused).toMatchObject({ status: 422, argument: 1, sql: 'insert into notes (body) values (?)' })
    expect((refused as Error).message).toMatch(REFUSED)
    await expect(db.execute({ sql: 'insert into notes (body) values (:body)', args: { body: NUL } })).rejects.toMatchObject({ status: 422, argument: 'body' })
    // The batch is all or nothing: its first statement is not written either.
    await expect(
      db.batch([
        { sql: 'insert into notes (body) values (?)', args: ['first'] },
        { sql: 'insert into notes (id, body) values (?, ?)', args: [9, NUL] },
      ]),
    ).rejects.toMatchObject({ status: 422, argument: 2 })
    await expect(
      db.transaction(async (tx) => {
        await tx.execute('insert into notes (body) values (?)', ['in the transaction'])
        await tx.execute('update notes set body = ? where body = ?', [NUL, 'in the transaction'])
      }),
    ).rejects.toBeInstanceOf(NulTextError)
    expect(await bodies()).toEqual([])
  })

  it('keeps ordinary, multi-line and non-ASCII text as it is; bytes with a NUL go whole as a blob', async () => {
    await db.execute('delete from notes')
    const texts = ['plain', 'two\nlines\r\nand a\ttab', 'Zoë 李 👍🏽', '']
    for (const text of texts) await db.execute('insert into notes (body) values (?)', [text])
    expect(await bodies()).toEqual(texts)
    const bytes = new TextEncoder().encode(NUL)
    await db.execute('insert into notes (body, data) values (?, ?)', ['bytes', bytes])
    const row = await db.first<{ data: ArrayBuffer }>("select data from notes where body = 'bytes'")
    expect(new TextDecoder().decode(row!.data)).toBe(NUL)
  })

  it('refuses a number no column can hold (NaN, Infinity, a bigint beyond 64 bits), in execute and batch, writing nothing', async () => {
    await db.execute('delete from notes')
    for (const [value, position] of [[Number.NaN, 1], [Number.POSITIVE_INFINITY, 1], [-(2n ** 63n) - 1n, 1], [2n ** 63n, 1]] as const) {
      const refused = await db.execute('select * from notes where id = ?', [value]).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(NumberArgumentError)
      expect(refused).toMatchObject({ status: 422, argument: position, sql: 'select * from notes where id = ?' })
      expect((refused as Error).message).toMatch(NUMBER_REFUSED)
    }
    await expect(db.execute({ sql: 'select * from notes where id = :id', args: { id: Number.NaN } })).rejects.toMatchObject({ status: 422, argument: 'id' })
    await expect(
      db.batch([
        { sql: 'insert into notes (body) values (?)', args: ['first'] },
        { sql: 'insert into notes (id, body) values (?, ?)', args: [Number.NEGATIVE_INFINITY, 'second'] },
      ]),
    ).rejects.toMatchObject({ status: 422, argument: 1 })
    expect(await bodies()).toEqual([])
    // The edges of what a column holds are taken as they are.
    await db.execute('insert into notes (id, body) values (?, ?)', [2n ** 63n - 1n, 'largest'])
    await db.execute('insert into notes (id, body) values (?, ?)', [-(2n ** 63n), 'smallest'])
    await db.execute('insert into notes (body, data) values (?, ?)', ['real', Number.MAX_VALUE])
    expect(await bodies()).toEqual(['smallest', 'real', 'largest'])
  })

  it('reports the refused statement to the observer, with its error', async () => {
    const seen: QueryRecord[] = []
    await expect(db.withObserver((query) => seen.push(query)).execute('select * from notes where body = ?', [NUL])).rejects.toBeInstanceOf(NulTextError)
    expect(seen).toEqual([expect.objectContaining({ sql: 'select * from notes where body = ?', args: [NUL], rows: 0, error: expect.stringMatching(REFUSED) })])
  })
})

describe('over HTTP', () => {
  const HandWritten = v.object({ body: v.string() })
  let server: RunningServer
  let base: string
  beforeAll(async () => {
    const api = defineRoutes((r) => {
      r.put('/notes/{id}', async (c) => {
        const { body } = (await c.body()) as v.InferOutput<typeof HandWritten>
        await c.db.execute('insert or replace into notes (id, body) values (?, ?)', [Number(c.params.id), body])
        return c.db.first('select id, body from notes where id = ?', [Number(c.params.id)])
      }).body(HandWritten)
      r.post('/raw', async (c) => {
        const { body } = (await c.body()) as { body: string }
        return c.db.first('insert into notes (body) values (?) returning id, body', [body])
      })
      r.get('/notes/{id}', (c) => c.db.first('select id, body from notes where id = ?', [Number(c.params.id)]))
    })
    server = await startServer(createApp({ config: testConfig(), database: db, api }))
    base = `http://127.0.0.1:${server.port}/api`
  })
  afterAll(() => server.close())

  const send = async (method: string, path: string, json?: unknown) => {
    const response = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: json === undefined ? undefined : JSON.stringify(json) })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  it('a hand-written schema without withoutNul(): 422 in the envelope, nothing stored', async () => {
    const put = await send('PUT', '/notes/41', { body: NUL })
    expect(put).toEqual({ status: 422, body: { success: false, code: 422, error: expect.stringMatching(REFUSED) } })
    expect((await send('GET', '/notes/41')).body.data).toBeNull()
  })

  it('c.body() with no schema: 422 in the envelope, nothing stored', async () => {
    const before = await bodies()
    const post = await send('POST', '/raw', { body: NUL })
    expect(post).toEqual({ status: 422, body: { success: false, code: 422, error: expect.stringMatching(REFUSED) } })
    expect(await bodies()).toEqual(before)
  })

  it('a number parameter that is not a number (Number("abc") is NaN): 422 in the envelope, not a 500', async () => {
    expect(await send('GET', '/notes/abc')).toEqual({ status: 422, body: { success: false, code: 422, error: expect.stringMatching(NUMBER_REFUSED) } })
    expect(await send('GET', '/notes/1e999')).toEqual({ status: 422, body: { success: false, code: 422, error: expect.stringMatching(NUMBER_REFUSED) } })
  })

  it('ordinary and multi-line text is stored and read back as sent', async () => {
    for (const [id, text] of [
      [42, 'plain'],
      [43, 'first line\nsecond line\n'],
    ] as const) {
      expect(await send('PUT', `/notes/${id}`, { body: text })).toEqual({ status: 200, body: { success: true, data: { id, body: text } } })
      expect((await send('GET', `/notes/${id}`)).body.data).toEqual({ id, body: text })
    }
  })
})

describe('what svc stores itself', () => {
  it('a request whose body holds a NUL is traced whole, with the refused statement', async () => {
    const api = defineRoutes((r) => r.post('/raw', async (c) => c.db.execute('select ? as body', [((await c.body()) as { body: string }).body])))
    const traced = await tracedApp({ api })
    try {
      const response = await traced.app.fetch(request('POST', '/api/raw', { json: { body: NUL } }))
      expect(response.status).toBe(422)
      const record = await recordOf(traced, response)
      expect(record.status_code).toBe(422)
      expect(record.body.content).toEqual({ body: NUL })
      expect(record.queries).toEqual([expect.objectContaining({ sql: 'select ? as body', args: [NUL], error: expect.stringMatching(REFUSED) })])
    } finally {
      await traced.close()
    }
  })

  it("a failed job's error and stack holding a NUL are kept, the NUL written as \\u0000", async () => {
    await migrate(db, [queueMigration])
    const driver = databaseQueueDriver(db)
    const job = defineJob('nul-error', {
      attempts: 1,
      async handle() {
        throw new Error(`bad input ${NUL}`)
      },
    })
    await createQueue(driver).dispatch(job, null)
    await runWorker({ driver, jobs: jobRegistry([job as JobDefinition<never>]), queues: ['default'], services: {}, leaseMs: 1500, timeoutMs: 1000, stopWhenEmpty: true, idleMs: 20 })
    const failed = await driver.failed()
    expect(failed).toEqual([expect.objectContaining({ name: 'nul-error', error: 'bad input abc\\u0000def' })])
    expect(failed[0]!.stack).toContain('bad input abc\\u0000def')
    expect(await driver.counts()).toEqual([{ queue: 'default', pending: 0, delayed: 0, reserved: 0, failed: 1 }])
  })

  it("a failed scheduled task's error holding a NUL is kept, the NUL written as \\u0000", async () => {
    const tasks = [
      everyMinute(async function nulTask() {
        throw new Error(`bad input ${NUL}`)
      }),
    ]
    const [result] = await runSchedule({ tasks, db, services: {}, now: new Date('2026-03-01T10:00:20Z') })
    expect(result).toMatchObject({ task: 'nulTask', status: 'failed', error: `bad input ${NUL}` })
    expect(await db.first("select last_status, last_error from schedule_locks where task = 'nulTask'")).toEqual({ last_status: 'failed', last_error: 'bad input abc\\u0000def' })
  })
})
