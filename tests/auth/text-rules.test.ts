/**
 * Control and invisible characters in the auth routes' text (issue 11, item
 * 4): `victim@example.com\u0000` registered a second account, shown and
 * mailed as `victim@example.com`. Every text field now refuses them (422),
 * and email addresses are compared and stored in one form (trimmed, NFC,
 * lower case), so none of the variants below makes a second account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isVisibleText, normalizeEmail } from '../../framework/auth/text-rules.ts'
import { createAuthTestApp, PASSWORD, registerUser, type AuthTestApp } from './helpers.ts'

const VISIBLE = 'must not contain control or invisible characters.'

let t: AuthTestApp
beforeAll(async () => {
  t = await createAuthTestApp()
})
afterAll(() => t.close())

const register = (email: string, name = 'Someone', password = PASSWORD) =>
  t.client.post('/api/auth/register', { json: { name, email, password, password_confirmation: password } })

describe('a second account for an existing address', () => {
  it.each([
    ['a NUL after it', 'victim@example.com\u0000', 'The email field must not contain control or invisible characters.'],
    ['a zero-width space before it', '\u200Bvictim@example.com', 'The email field must not contain control or invisible characters.'],
    ['a zero-width joiner inside it', 'victim@exam\u200Dple.com', 'The email field must not contain control or invisible characters.'],
    ['a right-to-left override inside it', 'victim@\u202Eexample.com', 'The email field must not contain control or invisible characters.'],
    ['a soft hyphen inside it', 'vic\u00ADtim@example.com', 'The email field must not contain control or invisible characters.'],
    ['another case', 'Victim@EXAMPLE.com', 'The email has already been taken.'],
    ['surrounding spaces and a newline', '  victim@example.com\n', 'The email has already been taken.'],
  ])('is refused: %s', async (_name, email, message) => {
    await registerUser(t.client, { email: 'victim@example.com' }).catch(() => undefined)
    const response = await register(email)
    expect(response.status).toBe(422)
    expect(response.body.errors.email).toEqual([message])
    expect((await t.db.execute("select count(*) as n from users where email like '%victim%'")).rows[0]!.n).toBe(1)
  })

  it('is refused for the same letters in another Unicode form (NFC), and stored in that one form', async () => {
    const composed = await register('Jos\u00E9@example.com')
    expect(composed.status).toBe(201)
    expect(composed.body.data.user.email).toBe('jos\u00E9@example.com')
    const decomposed = await register('jose\u0301@example.com')
    expect(decomposed.status).toBe(422)
    expect(decomposed.body.errors.email).toEqual(['The email has already been taken.'])
    // A non-ASCII capital, which SQLite's `collate nocase` would not fold.
    expect((await register('\u00C9lodie@example.com')).status).toBe(201)
    expect((await register('\u00E9lodie@example.com')).status).toBe(422)
  })

  it('logs in with the address in any case or form; a control character in it is a 422', async () => {
    await register('mixed@example.com')
    for (const email of ['MIXED@example.com', ' Mixed@Example.Com ']) {
      expect((await t.client.post('/api/auth/login', { json: { email, password: PASSWORD } })).status, email).toBe(200)
    }
    const nul = await t.client.post('/api/auth/login', { json: { email: 'mixed@example.com\u0000', password: PASSWORD } })
    expect(nul.status).toBe(422)
    expect(nul.body.errors.email).toEqual([`The email field ${VISIBLE}`])
  })
})

describe('every text field of the auth routes', () => {
  const bad = ['\u0000', '\u0007', '\u007F', '\u0085', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u202E', '\u2066', '\u2028', '\u3164', '\u{E0041}']

  it.each([
    ['register', 'name', { name: 'Eve Adams', email: 'eve@example.com', password: PASSWORD, password_confirmation: PASSWORD }],
    ['register', 'email', { name: 'Eve Adams', email: 'eve@example.com', password: PASSWORD, password_confirmation: PASSWORD }],
    ['register', 'password', { name: 'Eve Adams', email: 'eve@example.com', password: PASSWORD, password_confirmation: PASSWORD }],
    ['login', 'email', { email: 'eve@example.com', password: PASSWORD }],
    ['refresh', 'refresh_token', { refresh_token: 'abc.def.ghi' }],
    ['verify-email', 'token', { token: 'abcdef' }],
    ['forgot-password', 'email', { email: 'eve@example.com' }],
    ['reset-password', 'token', { token: 'abcdef', password: PASSWORD, password_confirmation: PASSWORD }],
    ['reset-password', 'password', { token: 'abcdef', password: PASSWORD, password_confirmation: PASSWORD }],
  ])('POST /api/auth/%s refuses them in %s (422)', async (route, field, body: Record<string, string>) => {
    let address = 0
    for (const char of bad) {
      const value = `${body[field]!.slice(0, 3)}${char}${body[field]!.slice(3)}`
      const json = { ...body, [field]: value, ...(field === 'password' ? { password_confirmation: value } : {}) }
      const response = await t.client.post(`/api/auth/${route}`, { json, clientAddress: `10.77.${route.length}.${++address}` })
      expect(response.status, `${field} with U+${char.codePointAt(0)!.toString(16)}`).toBe(422)
      expect(response.body.errors[field], `${field} with U+${char.codePointAt(0)!.toString(16)}`).toEqual([`The ${field.replaceAll('_', ' ')} field ${VISIBLE}`])
    }
  })

  it('a password being checked is only bounded: one set before these rules still logs in', async () => {
    const { email, id } = await registerUser(t.client)
    const old = 'old\u0000password'
    const { createPasswordHasher } = await import('svc')
    const hash = await createPasswordHasher({ memoryKib: 64, iterations: 1, parallelism: 1 }).hash(old)
    await t.db.execute('update users set password = ? where id = ?', [hash, id])
    expect((await t.client.post('/api/auth/login', { json: { email, password: old } })).status).toBe(200)
  })

  it('accepts the letters and spaces of any script, in names and addresses', async () => {
    for (const [name, email] of [
      ['Zoë Åström-Núñez', 'zoe@example.com'],
      ['李小龙', '李@例え.jp'],
      ['Ольга Иванова', 'olga@пример.рф'],
      ['محمد', 'm@example.com'],
      ['O\u2019Brien', 'obrien@example.com'],
    ]) {
      const response = await register(email!, name!)
      expect(response.status, name).toBe(201)
      expect(response.body.data.user.name).toBe(name)
    }
  })
})

describe('the rules themselves', () => {
  it('isVisibleText', () => {
    expect(isVisibleText('plain text, with punctuation! and émoji 👍🏽')).toBe(true)
    expect(isVisibleText('family 👨\u200D👩\u200D👧')).toBe(false) // a zero-width joiner, even in an emoji sequence
    for (const char of ['\t', '\n', '\u0000', '\u009F', '\u00AD', '\u061C', '\u180E', '\u200E', '\u2029', '\u2064', '\u115F', '\uFFA0', '\uFFF9']) {
      expect(isVisibleText(`a${char}b`), `U+${char.codePointAt(0)!.toString(16)}`).toBe(false)
    }
  })

  it('normalizeEmail: NFC, then lower case as a whole', () => {
    expect(normalizeEmail('Jose\u0301@Example.COM')).toBe('jos\u00E9@example.com')
    expect(normalizeEmail('\u00C9LODIE@EXAMPLE.COM')).toBe('\u00E9lodie@example.com')
  })
})
