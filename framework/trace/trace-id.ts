/** Trace ids: `<prefix>_<32 hex>`, 128 random bits as in W3C trace context. */

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))
const ID_BYTES = 16
// Filling one pooled buffer per 256 ids keeps getRandomValues off the hot path.
const pool = new Uint8Array(ID_BYTES * 256)
let poolOffset = pool.length

export function createTraceId(prefix: string): string {
  if (poolOffset === pool.length) {
    crypto.getRandomValues(pool)
    poolOffset = 0
  }
  let hex = ''
  for (let i = poolOffset; i < poolOffset + ID_BYTES; i++) hex += HEX[pool[i]!]
  poolOffset += ID_BYTES
  return `${prefix}_${hex}`
}

export const TRACE_ID_PATTERN = /^[A-Za-z][A-Za-z0-9]*_[0-9a-f]{16,}$/
