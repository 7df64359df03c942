/**
 * `t.tokenFor({ password })` (svc/testing/project): the user it makes can also
 * log in, with the password hashed by the app's PASSWORD_HASH_* settings.
 * Without `password` the user still has none, as before (no password matches).
 * It used to make only users without a password, so a test that wanted to log
 * in as one could not.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { projectTestApp, type ProjectTestApp } from '../../cli/testing/project-app.ts'
import { SECRET } from '../auth/helpers.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'

let copy: AppCopy
let t: ProjectTestApp

beforeAll(async () => {
  copy = copyExampleApp('blog')
  copy.write('.env', `APP_ENV=development\nJWT_SECRET=${SECRET}\n`)
  t = await projectTestApp({ root: copy.dir })
}, 60_000)
afterAll(async () => {
  await t?.close()
  copy?.remove()
})

const login = (email: string, password: string) => t.client.post('/api/auth/login', { json: { email, password } })

it('with password, the user logs in with it (the stored hash is the app’s argon2id), and the token is theirs', async () => {
  const token = await t.tokenFor({ email: 'ada@example.test', name: 'Ada', password: 'a long passphrase' })
  const me = await t.client.get('/api/auth/me', { token })
  expect(me.body.data).toMatchObject({ email: 'ada@example.test', name: 'Ada', role: 'user' })
  const row = await t.db.first<{ password: string }>('select password from users where email = ?', ['ada@example.test'])
  expect(row!.password).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/)
  const answer = await login('ada@example.test', 'a long passphrase')
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  expect(answer.body.data.user.email).toBe('ada@example.test')
  expect((await login('ada@example.test', 'another passphrase')).status).toBe(401)
})

it('given to a user made earlier without one, the password becomes theirs; without it, nobody logs in', async () => {
  await t.tokenFor({ email: 'bob@example.test' })
  expect((await login('bob@example.test', '!')).status).toBe(401)
  await t.tokenFor({ email: 'bob@example.test', password: 'bob passphrase' })
  expect((await login('bob@example.test', 'bob passphrase')).status).toBe(200)
})

it('an empty password is refused, saying why', async () => {
  await expect(t.tokenFor({ email: 'eve@example.test', password: '' })).rejects.toThrow('tokenFor: password is empty')
})
