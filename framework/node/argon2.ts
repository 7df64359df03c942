/**
 * argon2id in native code (@node-rs/argon2) for Node: the same function as
 * the portable one (same PHC strings, same parameters, same bytes), about
 * three times faster, and run on libuv's thread pool instead of the one
 * JavaScript thread, so hashing does not hold up other requests. Apps served
 * by the `svc` CLI use it; pass it yourself with `authPlugin({ argon2id })`.
 */
import { availableParallelism } from 'node:os'
import { hashRaw } from '@node-rs/argon2'
import type { Argon2id } from '../auth/passwords.ts'

// The package's enums are `const enum`s, which isolated modules cannot import: their values.
const ARGON2ID = 2
const VERSION_0X13 = 1

export const nativeArgon2id: Argon2id = {
  name: 'native (@node-rs/argon2)',
  // One hash per CPU: more would only wait in libuv's pool holding their memory.
  concurrency: availableParallelism(),
  async derive(password, salt, params, length) {
    return hashRaw(password, {
      algorithm: ARGON2ID,
      version: VERSION_0X13,
      memoryCost: params.memoryKib,
      timeCost: params.iterations,
      parallelism: params.parallelism,
      outputLen: length,
      salt,
    })
  },
}
