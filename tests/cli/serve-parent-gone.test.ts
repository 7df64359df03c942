/**
 * `npx svc serve` and `npm start` run svc under npm (through `sh -c`), and
 * npm does not pass SIGTERM on: a process manager, a test harness or an
 * editor that stopped npm left `svc serve` running, holding its port. svc
 * now stops as on SIGTERM (in-flight requests finish, traces are written)
 * once the package runner that started it is gone; one started otherwise (a
 * shell, a service manager) is left alone (cli/server/parent-watch.ts).
 *
 * Here a real runner: a Node process with npm's `npm_config_user_agent`
 * that starts `sh -c "node svc serve"`, as npm does, and is killed with
 * SIGKILL (it passes nothing on, as npm passes nothing on).
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { PARENT_CHECK_MS, PARENT_GONE, watchParent } from '../../cli/server/parent-watch.ts'
import { copyExampleApp, slowRoute, spawnSvc, svcEnv, svcJson, SVC_BIN, waitForLine, type AppCopy } from '../helpers/cli.ts'

let app: AppCopy
const orphans: number[] = []
beforeAll(() => {
  app = copyExampleApp()
  app.addRoutes('web.ts', slowRoute('/slow', app.path('release')))
})
afterAll(() => app.remove())
afterEach(() => {
  // A server the fix did not stop is not left behind.
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
})

/** A runner as npm is: it starts `sh -c "node svc serve --port 0"` with npm's environment and forwards no signal. */
function startRunner(env: Record<string, string | undefined>, shell: 'sh -c' | 'exec'): ChildProcessWithoutNullStreams {
  const command = `${shell === 'exec' ? 'exec ' : ''}"${process.execPath}" "${SVC_BIN}" serve --port 0`
  const script = `require('node:child_process').spawn('sh', ['-c', ${JSON.stringify(command)}], { stdio: 'inherit' }); setInterval(() => {}, 1000)`
  return spawn(process.execPath, ['-e', script], { cwd: app.dir, env: { ...svcEnv(), ...env } as NodeJS.ProcessEnv })
}

/** Resolves once every process holding the runner's stdout (the runner, sh, svc) has ended. */
function outputEnded(runner: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => runner.stdout.once('end', resolve))
}

describe('svc serve started by a package runner that goes away', () => {
  it('stops as on SIGTERM once the runner is killed: the request in flight finishes, its trace is written', async () => {
    const runner = startRunner({ npm_config_user_agent: 'npm/11.0.0 node/v20 linux x64' }, 'sh -c')
    let output = ''
    runner.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    runner.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    const ended = outputEnded(runner)
    const [, url] = await waitForLine(runner.stdout, /^svc listening on (http:\/\/127\.0\.0\.1:\d+) /)
    const slow = fetch(`${url}/slow`)
    const [, pid] = await waitForLine(runner.stderr, /^slow: started in (\d+)$/)
    orphans.push(Number(pid))
    runner.kill('SIGKILL')
    await vi.waitFor(() => expect(output).toContain(`${PARENT_GONE}: finishing in-flight requests`), { timeout: 10 * PARENT_CHECK_MS, interval: 50 })
    writeFileSync(app.path('release'), '')
    const response = await slow
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ success: true, data: { slow: 'done', pid: Number(pid) } })
    await ended
    expect(() => process.kill(Number(pid), 0)).toThrow()
    const traceId = response.headers.get('x-service-trace-id')
    const listed = await svcJson<{ traces: Array<{ trace_id: string; status_code: number }> }>(['trace:list', '--path', '/slow'], { cwd: app.dir })
    expect(listed.traces).toContainEqual(expect.objectContaining({ trace_id: traceId, status_code: 200 }))
  })

  it('one started otherwise (no package runner) is left running when its parent goes', async () => {
    const runner = startRunner({ npm_config_user_agent: undefined }, 'exec')
    const [, url] = await waitForLine(runner.stdout, /^svc listening on (http:\/\/127\.0\.0\.1:\d+) /)
    orphans.push(runnerChildPid(runner))
    runner.kill('SIGKILL')
    // Three checks' time: the watch, had it run, would have stopped it.
    await new Promise((resolve) => setTimeout(resolve, 3 * PARENT_CHECK_MS))
    expect((await fetch(`${url}/health/live`)).status).toBe(200)
  })

  it('a daemon started detached under npm (queue:work --daemon) outlives the svc that started it', async () => {
    const env = { JWT_SECRET: 'd'.repeat(40), npm_config_user_agent: 'npm/11.0.0 node/v20 linux x64' }
    expect((await spawnSvc(['migrate'], { cwd: app.dir, env })).code).toBe(0)
    const started = await spawnSvc(['queue:work', '--daemon'], { cwd: app.dir, env })
    expect(started.code, started.stderr).toBe(0)
    const pid = Number(/pid (\d+)/.exec(started.stdout)?.[1])
    orphans.push(pid)
    // Its parent (the svc above) is gone at once: three checks' time, and it still runs.
    await new Promise((resolve) => setTimeout(resolve, 3 * PARENT_CHECK_MS))
    expect(() => process.kill(pid, 0)).not.toThrow()
    process.kill(pid, 'SIGTERM')
  })
})

/** The pid of the runner's child: with `exec`, sh became svc. */
function runnerChildPid(runner: ChildProcessWithoutNullStreams): number {
  return Number(execFileSync('pgrep', ['-P', String(runner.pid)], { encoding: 'utf8' }).trim())
}

describe('watchParent', () => {
  const env = { npm_config_user_agent: 'npm/11.0.0' }
  const leadsSession = () => false

  it('watches only under a package runner, not as the child of pid 1 (systemd, Docker\'s init), not in a session of its own (a daemon)', () => {
    expect(watchParent(() => {}, { env: {}, parentPid: () => 500, parentOf: () => 400, leadsSession })).toBeUndefined()
    expect(watchParent(() => {}, { env, parentPid: () => 1, parentOf: () => 0, leadsSession })).toBeUndefined()
    // queue:work --daemon starts its daemon detached, with npm's environment, and exits: the daemon stays.
    expect(watchParent(() => {}, { env, parentPid: () => 500, parentOf: () => 400, leadsSession: () => true })).toBeUndefined()
    const stop = watchParent(() => {}, { env, parentPid: () => 500, parentOf: () => 400, leadsSession })
    expect(stop).toBeTypeOf('function')
    stop!()
  })

  it('calls back once the parent is handed to another, or the grandparent is gone (a shell left waiting under a killed npm)', () => {
    vi.useFakeTimers()
    try {
      for (const change of ['parent', 'grandparent'] as const) {
        let parent = 500
        let grandparent = 400
        const gone = vi.fn()
        watchParent(gone, { env, parentPid: () => parent, parentOf: () => grandparent, leadsSession })
        vi.advanceTimersByTime(5 * PARENT_CHECK_MS)
        expect(gone).not.toHaveBeenCalled()
        if (change === 'parent') parent = 1
        else grandparent = 1
        vi.advanceTimersByTime(PARENT_CHECK_MS)
        expect(gone, change).toHaveBeenCalledTimes(1)
        vi.advanceTimersByTime(5 * PARENT_CHECK_MS)
        expect(gone, change).toHaveBeenCalledTimes(1)
      }
    } finally {
      vi.useRealTimers()
    }
  })
})
