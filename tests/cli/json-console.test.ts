/**
 * `--json` keeps stdout one JSON document even when the app's own code logs:
 * its modules load inside the command (route:list, the extension's most
 * frequent call), and what they print goes to stderr.
 */
import { describe, expect, it } from 'vitest'
import { bufferIO } from '../../cli/output/io.ts'
import { withConsoleOnStderr } from '../../cli/output/print.ts'
import { exampleAppAndOutside } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'

const example = exampleAppAndOutside('svc-json-console-')

describe('--json and the app console', () => {
  it("route:list --json: the app's console output at load goes to stderr, and the console is given back", async () => {
    const original = example.app.read('routes', 'api.ts')
    example.app.write('routes/api.ts', `console.log('loading the api routes')\nconsole.warn('a warning at load')\n${original}`)
    const consoleLog = console.log
    try {
      const result = await runSvc(['route:list', '--json'], { cwd: example.app.dir })
      expect(result.exitCode, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout).routes.length).toBeGreaterThan(0)
      expect(result.stderr).toContain('loading the api routes\n')
      expect(result.stderr).toContain('a warning at load\n')
      expect(console.log).toBe(consoleLog)
      // Without --json, the human table and the app's line share stdout as before: the console is not touched.
      const human = await runSvc(['route:list'], { cwd: example.app.dir })
      expect(human.stderr).not.toContain('loading the api routes')
    } finally {
      example.app.write('routes/api.ts', original)
    }
  })

  it('overlapping runs write to the latest one still going and give the console back when the last ends', async () => {
    const consoleLog = console.log
    const first = bufferIO({ cwd: example.app.dir, env: {} })
    const second = bufferIO({ cwd: example.app.dir, env: {} })
    let endFirst = () => {}
    const firstRun = withConsoleOnStderr(first, async () => {
      console.log('one')
      await new Promise<void>((resolve) => (endFirst = resolve))
    })
    await withConsoleOnStderr(second, async () => {
      console.log('two')
      endFirst()
      await firstRun
      // The first run ended inside the second: the console is still the second's.
      console.info('three')
    })
    expect(first.output.stderr).toBe('one\n')
    expect(second.output.stderr).toBe('two\nthree\n')
    expect(console.log).toBe(consoleLog)
  })
})
