/**
 * Password hashing: argon2id stored as a PHC string
 * (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`). The PHC format, salts,
 * parameters and comparison live here; the argon2id function itself is
 * pluggable: `portableArgon2id` (@noble/hashes, plain JavaScript, so it runs
 * in every fetch runtime: Workers forbid compiling WebAssembly from bytes) by
 * default, svc/node's `nativeArgon2id` on Node. Both give the same bytes for
 * the same input, so either verifies the other's hashes. See
 * docs/authentication.md.
 */
import { argon2idAsync } from '@noble/hashes/argon2.js'
import { OWASP_ARGON2ID, type PasswordHashParams } from './settings.ts'

const SALT_BYTES = 16
const HASH_BYTES = 32
const ARGON2_VERSION = 0x13

/** An argon2id function (version 0x13): the raw hash of a password for a salt and cost parameters. */
export interface Argon2id {
  /** Shown in docs and benchmarks: which implementation this is. */
  readonly name: string
  /**
   * How many hashes are worth running at once: the size of the auth plugin's
   * hashing semaphore unless `PASSWORD_HASH_CONCURRENCY` says otherwise.
   */
  readonly concurrency: number
  derive(password: string, salt: Uint8Array, params: PasswordHashParams, length: number): Promise<Uint8Array>
}

/**
 * argon2id in plain JavaScript (@noble/hashes), for every runtime. It runs on
 * the one JavaScript thread, yielding every 10 ms, so two hashes at once only
 * take twice as long each and hold twice the memory: one at a time.
 */
export const portableArgon2id: Argon2id = {
  name: 'portable (@noble/hashes)',
  concurrency: 1,
  derive(password, salt, p, length) {
    return argon2idAsync(new TextEncoder().encode(password), salt, {
      m: p.memoryKib,
      t: p.iterations,
      p: p.parallelism,
      dkLen: length,
      version: ARGON2_VERSION,
      asyncTick: 10,
    })
  },
}

export interface PasswordHasher {
  readonly params: PasswordHashParams
  /** A fresh salt, the current parameters: a PHC string. */
  hash(password: string): Promise<string>
  /** False for a wrong password and for a stored value that is not an argon2id PHC string. */
  verify(stored: string, password: string): Promise<boolean>
  /** True when `stored` was made with other parameters than the current ones (re-hash it on login). */
  needsRehash(stored: string): boolean
  /**
   * Spends the same time as a verify against a real hash, for unknown
   * accounts, so that the answer's timing does not tell which emails exist.
   */
  verifyDummy(password: string): Promise<false>
}

interface ParsedHash {
  params: PasswordHashParams
  salt: Uint8Array
  hash: Uint8Array
}

/**
 * @example const hasher = createPasswordHasher({ memoryKib: 19456, iterations: 2, parallelism: 1 })
 * @example const hasher = createPasswordHasher(OWASP_ARGON2ID, nativeArgon2id) // svc/node
 */
export function createPasswordHasher(params: PasswordHashParams = OWASP_ARGON2ID, argon2id: Argon2id = portableArgon2id): PasswordHasher {
  let dummy: Promise<string> | undefined
  const derive = argon2id.derive

  const hasher: PasswordHasher = {
    params,
    async hash(password) {
      const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES))
      const hash = await derive(password, salt, params, HASH_BYTES)
      return formatPhc({ params, salt, hash })
    },
    async verify(stored, password) {
      const parsed = parsePhc(stored)
      if (parsed === undefined) return false
      const derived = await derive(password, parsed.salt, parsed.params, parsed.hash.length)
      return constantTimeEqual(derived, parsed.hash)
    },
    needsRehash(stored) {
      const parsed = parsePhc(stored)
      if (parsed === undefined) return true
      return (
        parsed.params.memoryKib !== params.memoryKib ||
        parsed.params.iterations !== params.iterations ||
        parsed.params.parallelism !== params.parallelism ||
        parsed.hash.length !== HASH_BYTES
      )
    },
    async verifyDummy(password) {
      dummy ??= hasher.hash('svc-dummy-password-for-timing')
      await hasher.verify(await dummy, password)
      return false
    },
  }
  return hasher
}

export function formatPhc({ params, salt, hash }: ParsedHash): string {
  return `$argon2id$v=${ARGON2_VERSION}$m=${params.memoryKib},t=${params.iterations},p=${params.parallelism}$${b64(salt)}$${b64(hash)}`
}

export function parsePhc(stored: string): ParsedHash | undefined {
  const match = /^\$argon2id\$v=19\$m=(\d{1,8}),t=(\d{1,4}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored)
  if (match === null) return undefined
  const params = { memoryKib: Number(match[1]), iterations: Number(match[2]), parallelism: Number(match[3]) }
  if (params.parallelism < 1 || params.iterations < 1 || params.memoryKib < 8 * params.parallelism) return undefined
  try {
    const salt = unb64(match[4]!)
    const hash = unb64(match[5]!)
    if (salt.length < 8 || hash.length < 16) return undefined
    return { params, salt, hash }
  } catch {
    return undefined
  }
}

export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!
  return difference === 0
}

function b64(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/=+$/, '')
}

function unb64(text: string): Uint8Array {
  const padded = text + '='.repeat((4 - (text.length % 4)) % 4)
  return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0))
}
