/**
 * The redis driver with Redis out of reach: `queue:status` and a dispatch fail
 * with E_QUEUE_UNREACHABLE (its message and fix), and nothing else is printed.
 * ioredis prints `[ioredis] Unhandled error event: Error: connect ECONNREFUSED`
 * and a stack on stderr for every reconnect of a client nobody listens to:
 * the driver listens, since the failure reaches its caller as a rejection.
 */
import { createServer } from 'node:net'
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { redisQueueDriver } from '../../framework/node/redis-queue.ts'

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

let stderr: MockInstance<typeof console.error>
beforeEach(() => {
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(() => stderr.mockRestore())

describe('the redis driver, Redis out of reach', () => {
  it('rejects counts() saying why, and prints nothing of its own', async () => {
    const driver = redisQueueDriver({ url: `redis://127.0.0.1:${await closedPort()}` })
    try {
      // Why, not only ioredis' "Reached the max retries per request limit (which is 2)".
      await expect(driver.counts()).rejects.toThrow(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/)
    } finally {
      await driver.close()
    }
    expect(stderr.mock.calls.map((call) => call.map(String).join(' '))).toEqual([])
  })
})
