/**
 * argon2id as a PHC string, verification, re-hash detection, and the
 * parameters from configuration: one suite run over both argon2id functions
 * (the portable one and svc/node's native one), and each verifying the other's.
 */
import { describe, expect, it } from 'vitest'
import { OWASP_ARGON2ID, portableArgon2id, resolveAuthSettings, resolveConfig, type Argon2id, type PasswordHashParams } from 'svc'
import { nativeArgon2id } from 'svc/node'
import { createPasswordHasher as createHasher, parsePhc } from '../../framework/auth/passwords.ts'

describe.each([portableArgon2id, nativeArgon2id])('password hasher on $name', (argon2id: Argon2id) => {
  const createPasswordHasher = (params?: PasswordHashParams) => createHasher(params, argon2id)

  it('uses OWASP argon2id parameters by default (m=19 MiB, t=2, p=1)', async () => {
    expect(OWASP_ARGON2ID).toEqual({ memoryKib: 19_456, iterations: 2, parallelism: 1 })
    const hasher = createPasswordHasher()
    const hash = await hasher.hash('correct horse battery staple')
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(await hasher.verify(hash, 'correct horse battery staple')).toBe(true)
    expect(hasher.needsRehash(hash)).toBe(false)
  })

  it('verifies a PHC string made by another argon2id implementation', async () => {
    // Produced by hash-wasm (the C reference code compiled to WASM): password "password", salt "somesalt".
    const reference = '$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHQ$FqGkmHNGCd0BRW2kBt6fPZ2pPmyGwwChL8FGUhTOSSI'
    const hasher = createPasswordHasher({ memoryKib: 64, iterations: 2, parallelism: 1 })
    expect(await hasher.verify(reference, 'password')).toBe(true)
    expect(await hasher.verify(reference, 'passwore')).toBe(false)
  })

  it('salts every hash, verifies, refuses wrong passwords and malformed stored values', async () => {
    const hasher = createPasswordHasher({ memoryKib: 64, iterations: 1, parallelism: 1 })
    const a = await hasher.hash('secret password')
    const b = await hasher.hash('secret password')
    expect(a).not.toBe(b)
    expect(await hasher.verify(a, 'secret password')).toBe(true)
    expect(await hasher.verify(a, 'secret passwore')).toBe(false)
    expect(await hasher.verify(a, '')).toBe(false)
    for (const bad of ['', 'plain', '$2b$10$abcdefghijklmnopqrstuv', a.replace('argon2id', 'argon2i'), a.slice(0, -5) + '!!!!!', '$argon2id$v=19$m=1,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc']) {
      expect(await hasher.verify(bad, 'secret password'), bad).toBe(false)
      expect(hasher.needsRehash(bad)).toBe(true)
    }
  })

  it('asks for a re-hash when any parameter differs', async () => {
    const current = createPasswordHasher({ memoryKib: 64, iterations: 1, parallelism: 1 })
    for (const params of [
      { memoryKib: 128, iterations: 1, parallelism: 1 },
      { memoryKib: 64, iterations: 2, parallelism: 1 },
      { memoryKib: 64, iterations: 1, parallelism: 2 },
    ]) {
      const old = await createPasswordHasher(params).hash('pw pw pw pw')
      expect(current.needsRehash(old)).toBe(true)
      expect(await current.verify(old, 'pw pw pw pw')).toBe(true)
    }
    expect(parsePhc(await current.hash('x'))?.params).toEqual({ memoryKib: 64, iterations: 1, parallelism: 1 })
  })

  it('takes its parameters from PASSWORD_HASH_* and refuses bad ones', () => {
    const settings = resolveAuthSettings(resolveConfig({ PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '3', PASSWORD_HASH_PARALLELISM: '2' }))
    expect(settings.password).toEqual({ memoryKib: 1024, iterations: 3, parallelism: 2 })
    expect(resolveAuthSettings(resolveConfig({})).password).toEqual(OWASP_ARGON2ID)
    expect(() => resolveAuthSettings(resolveConfig({ PASSWORD_HASH_MEMORY_KIB: '4' }))).toThrow(/PASSWORD_HASH_MEMORY_KIB: must be between 8/)
    expect(() => resolveAuthSettings(resolveConfig({ PASSWORD_HASH_ITERATIONS: 'two' }))).toThrow(/PASSWORD_HASH_ITERATIONS/)
  })
})

describe('the portable and the native argon2id', () => {
  const params = { memoryKib: 256, iterations: 2, parallelism: 2 }

  it('derive the same bytes for the same password, salt and parameters', async () => {
    const salt = new TextEncoder().encode('sixteen byte salt')
    for (const password of ['', 'password', 'pässwörd ✓ with ünïcode', 'x'.repeat(256)]) {
      expect(Buffer.from(await nativeArgon2id.derive(password, salt, params, 32)).toString('hex'), password).toBe(
        Buffer.from(await portableArgon2id.derive(password, salt, params, 32)).toString('hex'),
      )
    }
  })

  it("verify each other's PHC strings (a store can move between runtimes)", async () => {
    const portable = createHasher(params, portableArgon2id)
    const native = createHasher(params, nativeArgon2id)
    expect(await native.verify(await portable.hash('from the portable one'), 'from the portable one')).toBe(true)
    expect(await portable.verify(await native.hash('from the native one'), 'from the native one')).toBe(true)
    expect(await portable.verify(await native.hash('from the native one'), 'from the native onE')).toBe(false)
  })

  it('say how many hashes are worth running at once: one for the portable (one JavaScript thread), the CPUs for the native', async () => {
    const { availableParallelism } = await import('node:os')
    expect(portableArgon2id.concurrency).toBe(1)
    expect(nativeArgon2id.concurrency).toBe(availableParallelism())
  })
})
