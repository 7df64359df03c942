/**
 * What a request writes together commits together: a write that fails on the
 * way (a busy database's 503) leaves nothing half done, so the client's
 * retry succeeds. A reset or verification link is used up with what it does
 * (two uses at once: one does it all, the other 422); a detected refresh
 * token reuse revokes the family, moves the token version and logs the event
 * at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ServiceBusyError, type Database } from 'svc'
import { createAuthTestApp, openTestDatabase, PASSWORD, registerUser, type AuthTestApp } from './helpers.ts'

let t: AuthTestApp
/** The next statement (alone or in a batch) matching this fails as a busy database's write does, once. */
let failNext: RegExp | undefined

function failing(database: Database): Database {
  const fails = (sql: string) => {
    if (failNext === undefined || !failNext.test(sql)) return false
    failNext = undefined
    return true
  }
  const sqlOf = (statement: string | { sql: string }) => (typeof statement === 'string' ? statement : statement.sql)
  const wrap = (target: Database): Database =>
    new Proxy(target, {
      get(object, name, receiver) {
        if (name === 'withObserver') return (observer: Parameters<Database['withObserver']>[0]) => wrap(object.withObserver(observer))
        if (name === 'batch') {
          return async (statements: Array<string | { sql: string }>) => {
            if (statements.some((statement) => fails(sqlOf(statement)))) throw new ServiceBusyError(1, new Error('simulated: waited its whole turn'))
            return object.batch(statements)
          }
        }
        if (name !== 'execute' && name !== 'first' && name !== 'all') return Reflect.get(object, name, receiver)
        return async (statement: string | { sql: string }, ...rest: unknown[]) => {
          if (fails(sqlOf(statement))) throw new ServiceBusyError(1, new Error('simulated: waited its whole turn'))
          return (object[name] as (...args: unknown[]) => unknown).call(object, statement, ...rest)
        }
      },
    })
  return wrap(database)
}

beforeAll(async () => {
  const opened = await openTestDatabase()
  t = await createAuthTestApp({ database: { db: failing(opened.db), dir: opened.dir } })
})
afterAll(() => t.close())

async function linkToken(email: string, subject: string, send: () => Promise<unknown>): Promise<string> {
  const before = t.mailer.messages.length
  await send()
  const mail = await t.mailer.waitFor((m, i = t.mailer.messages.indexOf(m)) => i >= before && m.to === email && m.subject === subject)
  return decodeURIComponent(/token=([^&\s]+)/.exec(mail.text)![1]!)
}

const resetLink = (email: string) =>
  linkToken(email, 'Reset your password', () => t.client.post('/api/auth/forgot-password', { json: { email } }))

const reset = (token: string, password: string) =>
  t.client.post('/api/auth/reset-password', { json: { token, password, password_confirmation: password } })

describe('password reset', () => {
  it('a write that fails on the way leaves the link working: the retry resets', async () => {
    const { email, id } = await registerUser(t.client)
    const token = await resetLink(email)
    failNext = /update users set password/
    const busy = await reset(token, 'the new passphrase')
    expect(busy.status).toBe(503)
    expect(failNext).toBeUndefined()
    expect(await t.db.first('select token_version from users where id = ?', [id])).toEqual({ token_version: 0 })
    expect((await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })).status).toBe(200)

    expect((await reset(token, 'the new passphrase')).status).toBe(200)
    expect((await t.client.post('/api/auth/login', { json: { email, password: 'the new passphrase' } })).status).toBe(200)
    expect((await reset(token, 'a third passphrase')).status).toBe(422)
  })

  it('two resets with one link at once: one resets, the other is 422 and changes nothing', async () => {
    const { email, id } = await registerUser(t.client)
    const token = await resetLink(email)
    const answers = await Promise.all([reset(token, 'passphrase number one'), reset(token, 'passphrase number two')])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422])
    const winner = answers[0]!.status === 200 ? 'passphrase number one' : 'passphrase number two'
    const loser = winner === 'passphrase number one' ? 'passphrase number two' : 'passphrase number one'
    expect((await t.client.post('/api/auth/login', { json: { email, password: loser } })).status).toBe(401)
    expect((await t.client.post('/api/auth/login', { json: { email, password: winner } })).status).toBe(200)
    expect(await t.db.first('select token_version from users where id = ?', [id])).toEqual({ token_version: 1 })
  })
})

describe('email verification', () => {
  it('a write that fails on the way leaves the link working: the retry verifies', async () => {
    const before = t.mailer.messages.length
    const { email, id } = await registerUser(t.client)
    const mail = await t.mailer.waitFor((m, i = t.mailer.messages.indexOf(m)) => i >= before && m.to === email)
    const token = decodeURIComponent(/token=([^&\s]+)/.exec(mail.text)![1]!)
    failNext = /update users set email_verified_at/
    expect((await t.client.post('/api/auth/verify-email', { json: { token } })).status).toBe(503)
    expect(await t.db.first('select email_verified_at from users where id = ?', [id])).toEqual({ email_verified_at: null })
    expect((await t.client.post('/api/auth/verify-email', { json: { token } })).status).toBe(200)
    expect((await t.db.first<{ email_verified_at: string | null }>('select email_verified_at from users where id = ?', [id]))!.email_verified_at).not.toBeNull()
    expect((await t.client.post('/api/auth/verify-email', { json: { token } })).status).toBe(422)
  })
})

describe('refresh token reuse', () => {
  it('a write that fails on the way leaves the reuse to be seen again: the retry still stops every access token', async () => {
    const { refreshToken, id } = await registerUser(t.client)
    const rotated = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
    expect(rotated.status).toBe(200)
    // Past the reuse grace: presenting it again is a reuse.
    t.clock.advance(10_001)
    failNext = /update users set token_version/
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })).status).toBe(503)
    // Nothing was done (the family revoked with the version left as it was stopped the refresh tokens only):
    // the session still works until the reuse is seen.
    expect(await t.db.first('select count(*) as live from refresh_tokens where user_id = ? and revoked_at is null', [id])).toEqual({ live: 1 })
    expect(await t.db.first('select token_version from users where id = ?', [id])).toEqual({ token_version: 0 })
    expect((await t.client.get('/api/auth/me', { token: rotated.body.data.token })).status).toBe(200)
    const retried = await t.client.post('/api/auth/refresh', { json: { refresh_token: refreshToken } })
    expect(retried.status).toBe(401)
    expect(retried.body.error).toBe('Refresh token reuse detected: this session has been revoked, log in again')
    expect((await t.client.get('/api/auth/me', { token: rotated.body.data.token })).status).toBe(401)
    expect((await t.client.post('/api/auth/refresh', { json: { refresh_token: rotated.body.data.refresh_token } })).status).toBe(401)
    const events = await t.db.all<{ details: string }>("select details from security_events where type = 'refresh_token_reuse'")
    expect(events.map((event) => JSON.parse(event.details).revoked)).toEqual([1])
  })
})
