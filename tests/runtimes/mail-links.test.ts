/**
 * The example app on Deno and Bun with `PORT=0` and no `APP_URL`: the
 * verification mail's link names the port the server got, as under
 * `svc serve` (docs/configuration.md). The entry files listen before they
 * build the app; they used to build it first, and the link said port 0.
 * The mail is the console mailer's, read from the server's output once it
 * stopped (a graceful stop waits for the mail sent after the answer).
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { stopChild, waitForOutput } from '../helpers/child-process.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const installed = spawnSync('bash', ['scripts/install-runtimes.sh', '--installed'], { cwd: ROOT }).status === 0

describe.skipIf(!installed && process.env.CI === undefined)('mail links on Deno and Bun with PORT=0', () => {
  it.each(['deno', 'bun'])('%s: the verification link names the port the server listens on', async (runtime) => {
    const storage = join(ROOT, 'storage', 'tests', `mail-links-${runtime}-${process.pid}`)
    rmSync(storage, { recursive: true, force: true })
    mkdirSync(storage, { recursive: true })
    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      APP_ENV: 'development',
      JWT_SECRET: 'mail-links-test-secret-0123456789abcdef',
      DATABASE_URL: `file:${join(storage, 'database.sqlite')}`,
      TRACE_DATABASE_URL: `file:${join(storage, 'traces.sqlite')}`,
      MAIL_MAILER: 'console',
      NO_COLOR: '1',
    }
    delete env.APP_URL
    const child = spawn('bash', ['scripts/runtime.sh', runtime], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const { match, output } = await waitForOutput(child, /http:\/\/127\.0\.0\.1:(\d+)/, runtime, 120_000)
      const port = match[1]!
      expect(port).not.toBe('0')
      const password = 'correct horse battery staple'
      const registered = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', password, password_confirmation: password }),
      })
      expect(registered.status).toBe(201)
      await stopChild(child)
      const links = [...output().matchAll(/http:\/\/[^\s"<>]+\/verify-email\?token=[\w-]+/g)].map((found) => found[0])
      expect(links.length).toBeGreaterThan(0)
      for (const link of links) expect(new URL(link).origin).toBe(`http://127.0.0.1:${port}`)
    } finally {
      await stopChild(child)
      rmSync(storage, { recursive: true, force: true })
    }
  }, 180_000)
})
