/**
 * `userFactory`: sample users of make:auth's table that can log in, as
 * registration stores them (the password's argon2id hash, the email's stored
 * form), and the parent's factory of a foreign key to users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineFactory, defineModel, userFactory } from 'svc'
import { createAuthTestApp, type AuthTestApp } from './helpers.ts'

let t: AuthTestApp

beforeAll(async () => {
  t = await createAuthTestApp()
})
afterAll(() => t.close())

describe('userFactory', () => {
  it('stores users that log in with the password "password" (hashed, as registration stores it), each with an email of its own', async () => {
    const [first, second] = await userFactory.createMany(t.db, 2)
    expect(first).toMatchObject({ name: 'User 1', email: 'user1@example.test', role: 'user', status: 1, token_version: 0 })
    expect(second!.email).toBe('user2@example.test')
    expect(first!.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    const login = await t.client.post('/api/auth/login', { json: { email: 'user2@example.test', password: 'password' } })
    expect(login.status, JSON.stringify(login.body)).toBe(200)
    expect(login.body.data.user).toMatchObject({ id: second!.id, email: 'user2@example.test' })
  })

  it('takes overrides: a role, a password of its own, an email stored in its one form', async () => {
    const admin = await userFactory.create(t.db, { role: 'admin', email: ' Ada@Example.TEST ', password: 'a long passphrase' })
    expect(admin).toMatchObject({ role: 'admin', email: 'ada@example.test' })
    const login = await t.client.post('/api/auth/login', { json: { email: 'ada@example.test', password: 'a long passphrase' } })
    expect(login.status, JSON.stringify(login.body)).toBe(200)
    // make() stores nothing: the password as typed, for a register request's body.
    expect(userFactory.make()).toMatchObject({ email: expect.stringMatching(/^user\d+@example\.test$/), password: 'password' })
  })

  it("is a foreign key's parent factory: each row gets a user stored for it", async () => {
    await t.db.execute('create table notes (id integer primary key autoincrement, user_id integer not null references users (id), body text not null)')
    const Note = defineModel<{ id: number; user_id: number; body: string }, { user_id: number; body: string }>({ name: 'Note', table: 'notes', fillable: ['user_id', 'body'] })
    const notes = defineFactory(Note, (n) => ({ user_id: userFactory, body: `Note ${n}` }))
    const made = await notes.createMany(t.db, 2)
    const owners = await t.db.all<{ email: string }>(`select users.email from notes join users on users.id = notes.user_id order by notes.id`)
    expect(owners.map((row) => row.email)).toHaveLength(2)
    expect(new Set(made.map((row) => row.user_id)).size).toBe(2)
  })
})
