/**
 * The benchmark's servers answer what its scenarios expect (status and
 * body), each in its own process as `npm run bench` starts them, and the
 * wire check it relies on does fail on a chunked or unsized answer.
 * Nothing here is timed. The svc servers import the built `svc` (dist/).
 */
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { sign } from 'hono/jwt'
import { checkAnswer, send } from '../../bench/lib/check.ts'
import { BENCH_JWT_SECRET } from '../../bench/servers/svc-auth.ts'
import { serverKey, startServer, type RunningBenchServer } from '../../bench/lib/processes.ts'
import { scenarios, type Scenario } from '../../bench/scenarios.ts'
import { READY } from '../../bench/servers/types.ts'

describe('bench scenarios', () => {
  const servers = new Map<string, RunningBenchServer>()

  beforeAll(async () => {
    const specs = [...new Map(scenarios.map((s) => [serverKey(s.server), s.server])).entries()]
    // Two starts at a time: a start is mostly CPU (imports, the hashing servers' users), and one at a time left a CPU idle.
    const startNext = async (): Promise<void> => {
      for (let next = specs.shift(); next !== undefined; next = specs.shift()) servers.set(next[0], await startServer(next[1], undefined))
    }
    await Promise.all([startNext(), startNext()])
  }, 300_000)

  afterAll(async () => {
    await Promise.all([...servers.values()].map((server) => server.stop()))
  })

  it.each(scenarios.map((s) => [s.name, s] as const))('%s answers as expected', async (_name, scenario) => {
    const server = servers.get(serverKey(scenario.server))!
    const answer = await send(server.url, scenario, server.headers)
    expect(checkAnswer(scenario, answer)).toEqual([])
    expect(answer.status).toBe(scenario.expect.status)
    if (scenario.expect.json !== undefined) expect(JSON.parse(answer.text)).toEqual(scenario.expect.json)
  })

  it("the bearer route's peer reads the token's user: a valid token for a user it does not have is refused", async () => {
    const scenario = scenarios.find((s) => s.name === 'auth/hono-jwt-read')!
    const server = servers.get(serverKey(scenario.server))!
    const now = Math.floor(Date.now() / 1000)
    const stranger = await sign({ sub: '2', iat: now, exp: now + 60 }, BENCH_JWT_SECRET, 'HS256')
    expect((await send(server.url, scenario, { authorization: `Bearer ${stranger}` })).status).toBe(401)
    expect((await send(server.url, scenario, server.headers)).status).toBe(200)
  })

  it('reports the server process CPU time, growing with requests', async () => {
    const server = servers.get(serverKey(scenarios[0]!.server))!
    const before = await server.cpuTime()
    for (let i = 0; i < 20; i++) await send(server.url, scenarios[0]!)
    expect(await server.cpuTime()).toBeGreaterThan(before)
  })
})

describe('bench wire check', () => {
  let server: Server
  let url: string
  const scenario: Scenario = { name: 'wire/test', server: { factory: 'raw' }, path: '/', expect: { status: 200, json: { ok: true } }, checkWire: true }

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"ok"')
        res.end(':true}')
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' })
        res.end('{"ok":true}')
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('accepts a sized, unchunked answer', async () => {
    expect(checkAnswer(scenario, await send(url, scenario))).toEqual([])
  })

  it('fails a chunked answer with no Content-Length', async () => {
    const chunked = { ...scenario, path: '/chunked' }
    const problems = checkAnswer(chunked, await send(url, chunked))
    expect(problems).toContain('no Content-Length header')
    expect(problems).toContain('Transfer-Encoding: chunked')
  })

  it('fails a wrong status or body', () => {
    const answer = { status: 404, headers: { 'content-length': '2' }, text: '{}' }
    expect(checkAnswer(scenario, answer)).toEqual(['status 404, expected 200', 'body {}, expected {"ok":true}'])
  })
})

describe('a bench server process', () => {
  it('stops when its stdin ends: a bench killed by any signal leaves no server behind', async () => {
    const child = spawn(process.execPath, ['--import', 'jiti/register', 'bench/server-process.ts', JSON.stringify({ factory: 'raw' })], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    // Also when the test times out (the server ignoring its stdin), which skips a finally block.
    onTestFinished(() => void child.kill('SIGKILL'))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith(READY)) resolve()
      })
      child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)))
    })
    // What the pipe does when the parent dies, SIGKILL included.
    child.stdin!.end()
    expect(await exited).toBe(0)
  }, 60_000)
})
