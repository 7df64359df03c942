/**
 * A supervised worker (`svc live`, `svc serve:prod`) leaves node:cluster only
 * once the supervisor has answered its "closed" message: a connection the
 * supervisor handed over just before it learnt that the server closed is then
 * read and given back, instead of left open and unanswered when the process
 * exits (a request hung for 30 s after a reload under load in CI, and 1 in
 * about 20,000 did in a stress probe: 30 reloads under 8 clients). What is
 * checked is the order of the messages, not time.
 */
import { fork, spawn } from 'node:child_process'
import { once } from 'node:events'
import cluster, { type Worker } from 'node:cluster'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bufferIO } from '../../cli/output/io.ts'
import { WorkerCluster, WorkerStartError } from '../../cli/server/cluster.ts'
import { BYE_MESSAGE, CLOSED_MESSAGE } from '../../cli/server/worker.ts'
import { assertBuilt } from '../helpers/cli.ts'

const SCRIPT = join(import.meta.dirname, 'fixtures', 'leave-cluster.ts')

function startLeaving(): { child: ReturnType<typeof fork>; left: Promise<void>; exited: Promise<unknown> } {
  // Its own wait is a minute: anything sooner comes from the supervisor's side.
  const child = fork(SCRIPT, ['60000'], { execArgv: ['--import', 'jiti/register'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  // Listened for from the start: the child may exit before the test gets to wait for it.
  const exited = once(child, 'exit')
  let out = ''
  const left = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (out.includes('left')) resolve()
    })
    child.once('exit', (code) => (out.includes('left') ? resolve() : reject(new Error(`exited (${code}) without leaving`))))
  })
  return { child, left, exited }
}

describe('leaving the cluster', () => {
  it('waits for the supervisor to answer its "closed" message', async () => {
    const { child, left, exited } = startLeaving()
    let answered = false
    let leftFirst = false
    void left.then(() => (leftFirst = !answered))
    const [message] = (await once(child, 'message')) as [unknown]
    expect(message).toBe(CLOSED_MESSAGE)
    await new Promise((resolve) => setTimeout(resolve, 300))
    answered = true
    child.send(BYE_MESSAGE)
    await left
    expect(leftFirst).toBe(false)
    await exited
  }, 30_000)

  it('leaves at once when the supervisor is gone, or when there is none', async () => {
    const { child, left } = startLeaving()
    await once(child, 'message')
    child.disconnect()
    await left
    // No IPC channel at all (not supervised): nothing to wait for.
    const alone = spawn(process.execPath, ['--import', 'jiti/register', SCRIPT, '60000'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    alone.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    await once(alone, 'exit')
    expect(out).toBe('left\n')
  }, 30_000)

  it('the supervisor answers: a worker whose command returned gets "bye" and exits', async () => {
    assertBuilt()
    const sent: unknown[] = []
    const onFork = (worker: Worker) => {
      const send = worker.send.bind(worker) as (message: unknown) => boolean
      worker.send = ((message: unknown) => {
        sent.push(message)
        return send(message)
      }) as Worker['send']
    }
    cluster.on('fork', onFork)
    try {
      const io = bufferIO({ cwd: process.cwd(), env: { ...process.env } as Record<string, string> })
      // `svc --version` returns at once: the worker never listens, says it closed, and leaves.
      const workers = new WorkerCluster({ io, size: 1, port: 0, cwd: process.cwd(), replaceCrashed: false, args: () => ['--version'] })
      const error = await workers.start().then(() => undefined, (failure: unknown) => failure)
      expect(error).toBeInstanceOf(WorkerStartError)
      expect((error as WorkerStartError).exit).toEqual({ code: 0, signal: null })
      expect(sent).toContain(BYE_MESSAGE)
    } finally {
      cluster.off('fork', onFork)
    }
  }, 60_000)
})
