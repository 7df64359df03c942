/**
 * A throw-away Redis for the tests that need one: Debian's `redis-server` on
 * 127.0.0.1 and a free port, no persistence, stopped by the test. The
 * binary comes from scripts/ensure-test-deps.sh (npm test installs it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

export interface RunningRedis {
  url: string
  port: number
  stop(): Promise<void>
}

export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server'

export function redisAvailable(): boolean {
  return spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).status === 0
}

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export async function startRedis(): Promise<RunningRedis> {
  // Another process may take the port between freePort() and the bind: try a few.
  let lastError: Error | undefined
  for (let tries = 0; tries < 5; tries++) {
    const port = await freePort()
    try {
      const child = await launch(port)
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        stop: () => stopChild(child),
      }
    } catch (error) {
      lastError = error as Error
    }
  }
  throw lastError ?? new Error('redis-server did not start')
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`redis-server did not become ready: ${output}`))
    }, 30_000)
    const check = async () => {
      // Ready = it answers PING.
      for (;;) {
        if (child.exitCode !== null) return
        if (await pings(port)) {
          clearTimeout(timer)
          resolve(child)
          return
        }
        await new Promise((done) => setTimeout(done, 50))
      }
    }
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`redis-server exited with ${code}: ${output}`))
    })
    void check()
  })
}

async function pings(port: number): Promise<boolean> {
  const { connect } = await import('node:net')
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let reply = ''
    socket.setTimeout(1000, () => {
      socket.destroy()
      resolve(false)
    })
    socket.on('error', () => resolve(false))
    socket.on('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => {
      reply += chunk.toString()
      if (reply.includes('\r\n')) {
        socket.end()
        resolve(reply.startsWith('+PONG'))
      }
    })
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
