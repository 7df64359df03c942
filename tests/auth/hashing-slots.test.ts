/**
 * Registration must not exhaust memory (issue 11, item 3): each argon2id hash
 * in flight holds its memory cost, so the hashes running at once are bounded
 * (a semaphore sized to the CPUs), a bounded queue waits, and beyond it the
 * answer is 503 with Retry-After at once. Before, 200 registrations at once
 * ran 200 hashes at once (4 GB). The RSS under 100 concurrent registrations is
 * a benchmark check (`npm run bench -- --only register`), not a unit test.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { HttpError, limitHashing, type PasswordHasher } from 'svc'
import { createAuthTestApp, PASSWORD, type AuthTestApp } from './helpers.ts'

/** A hasher whose hashes end only when the test says so; it counts how many run at once. */
function gatedHasher() {
  const gates: Array<() => void> = []
  let running = 0
  let highWater = 0
  const gated = async <T>(value: T): Promise<T> => {
    running++
    highWater = Math.max(highWater, running)
    await new Promise<void>((resolve) => gates.push(resolve))
    running--
    return value
  }
  const hasher: PasswordHasher = {
    params: { memoryKib: 64, iterations: 1, parallelism: 1 },
    hash: (password) => gated(`hash:${password}`),
    verify: (stored, password) => gated(stored === `hash:${password}`),
    needsRehash: () => false,
    verifyDummy: () => gated(false as const),
  }
  const releaseOne = async () => {
    gates.shift()?.()
    // Let the released hash finish and hand its slot to the next one.
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
  return { hasher, releaseOne, get running() { return running }, get highWater() { return highWater }, get started() { return gates.length } }
}

describe('limitHashing', () => {
  it('runs at most `concurrency` hashes, queues `queue` more in order, refuses the rest with 503 + Retry-After', async () => {
    const gate = gatedHasher()
    const limited = limitHashing(gate.hasher, { concurrency: 2, queue: 3 })
    const finished: string[] = []
    const accepted = ['a', 'b', 'c', 'd', 'e'].map((name) => limited.hash(name).then((hash) => finished.push(hash)))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(gate.running).toBe(2)
    expect(limited.stats()).toEqual({ concurrency: 2, queue: 3, running: 2, waiting: 3, refused: 0 })

    for (const refused of [limited.hash('f'), limited.verify('hash:g', 'g'), limited.verifyDummy('h')]) {
      const error = await refused.then(() => undefined, (e: unknown) => e as HttpError)
      expect(error).toBeInstanceOf(HttpError)
      expect(error!.status).toBe(503)
      expect(Number(error!.headers!['Retry-After'])).toBeGreaterThanOrEqual(1)
    }
    expect(limited.stats().refused).toBe(3)

    while (finished.length < 5) await gate.releaseOne()
    await Promise.all(accepted)
    expect(finished).toEqual(['hash:a', 'hash:b', 'hash:c', 'hash:d', 'hash:e'])
    expect(gate.highWater).toBe(2)
    expect(limited.stats()).toMatchObject({ running: 0, waiting: 0 })
    // Room again once the queue drained.
    const again = limited.hash('i')
    await gate.releaseOne()
    expect(await again).toBe('hash:i')
  })

  it('a hash that fails gives its slot back', async () => {
    let calls = 0
    const failing: PasswordHasher = {
      params: { memoryKib: 64, iterations: 1, parallelism: 1 },
      hash: async () => {
        if (++calls === 1) throw new Error('out of memory')
        return 'ok'
      },
      verify: async () => true,
      needsRehash: () => false,
      verifyDummy: async () => false,
    }
    const limited = limitHashing(failing, { concurrency: 1, queue: 0 })
    await expect(limited.hash('x')).rejects.toThrow('out of memory')
    expect(await limited.hash('x')).toBe('ok')
  })
})

describe('hashing slots in the auth routes', () => {
  let t: AuthTestApp | undefined
  afterEach(() => t?.close())

  it('a registration or login beyond the queue is answered 503 with Retry-After at once, in the envelope', async () => {
    const gate = gatedHasher()
    t = await createAuthTestApp({ env: { PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '1' }, plugin: { hasher: gate.hasher } })
    const register = (i: number) =>
      t!.client.post('/api/auth/register', { json: { name: `N${i}`, email: `slot${i}@example.com`, password: PASSWORD, password_confirmation: PASSWORD } })
    const first = register(1)
    const second = register(2)
    while (gate.started < 1) await new Promise((resolve) => setTimeout(resolve, 0))
    const third = await register(3)
    expect(third.status).toBe(503)
    expect(third.body).toEqual({ success: false, error: 'The service is busy; try again in a moment.', code: 503 })
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    const login = await t.client.post('/api/auth/login', { json: { email: 'slot1@example.com', password: PASSWORD } })
    expect(login.status).toBe(503)

    const ready = await t.client.get('/health/ready')
    expect(ready.body.data.checks.password_hashing).toMatchObject({
      status: 'ok',
      argon2id: 'portable (@noble/hashes)',
      concurrency: 1,
      queue: 1,
      running: 1,
      waiting: 1,
      refused: 2,
    })
    await gate.releaseOne()
    await gate.releaseOne()
    expect((await first).status).toBe(201)
    expect((await second).status).toBe(201)
  })

  it('a reset with a made-up token is refused before its password is hashed: an unthrottled client cannot fill the slots', async () => {
    // reset-password has no throttle (its token is the secret); it hashed the new password first, so a client posting
    // made-up tokens held every slot and queue place, and logins and registrations got 503.
    const hashed: string[] = []
    const hasher: PasswordHasher = {
      params: { memoryKib: 64, iterations: 1, parallelism: 1 },
      hash: async (password) => {
        hashed.push(password)
        return `hash:${password}`
      },
      verify: async (stored, password) => stored === `hash:${password}`,
      needsRehash: () => false,
      verifyDummy: async () => false,
    }
    t = await createAuthTestApp({ plugin: { hasher } })
    const attempt = (i: number) => t!.client.post('/api/auth/reset-password', { json: { token: `made-up-${i}`, password: `new password ${i}`, password_confirmation: `new password ${i}` } })
    const answers = await Promise.all([1, 2, 3, 4, 5].map(attempt))
    expect(answers.map((answer) => answer.status)).toEqual([422, 422, 422, 422, 422])
    expect(answers[0]!.body.errors).toEqual({ token: ['This password reset token is invalid or has expired.'] })
    expect(hashed).toEqual([])
  })

  it("PASSWORD_HASH_CONCURRENCY and PASSWORD_HASH_QUEUE default to the argon2id's CPUs and 32; bad values stop start-up", async () => {
    t = await createAuthTestApp()
    const ready = await t.client.get('/health/ready')
    expect(ready.body.data.checks.password_hashing).toMatchObject({ argon2id: 'portable (@noble/hashes)', concurrency: 1, queue: 32 })
    await expect(createAuthTestApp({ env: { PASSWORD_HASH_CONCURRENCY: '0' } })).rejects.toThrow(/PASSWORD_HASH_CONCURRENCY: must be between 1/)
    await expect(createAuthTestApp({ env: { PASSWORD_HASH_QUEUE: 'lots' } })).rejects.toThrow(/PASSWORD_HASH_QUEUE: expected a whole number/)
  })
})
