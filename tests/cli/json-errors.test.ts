/**
 * A command that fails under `--json` prints one CliErrorJson document on
 * stdout (the code, message, fix and exit code) and still prints the human
 * lines on stderr; without `--json` stdout stays empty. Failures before the
 * line is parsed (unknown command, unknown option, bad value) count too.
 */
import { createServer, type AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { asksForJson } from '../../cli/main.ts'
import { describeFailure } from '../../cli/output/print.ts'
import { exampleAppAndOutside } from '../helpers/cli.ts'
import { runSvc, svcJsonError } from '../helpers/run-svc.ts'

const example = exampleAppAndOutside('svc-json-errors-')
const elsewhere = example.outside

describe('--json failures', () => {
  it('a command that reads state and fails prints the error document on stdout, the human lines on stderr', async () => {
    const { exitCode, stderr, document } = await svcJsonError(['log:trace', 'svc_no_such_trace'], { cwd: example.app.dir })
    expect(exitCode).toBe(1)
    expect(document).toEqual({ error: { code: 'E_TRACE_NOT_FOUND', message: 'No trace with id "svc_no_such_trace"', fix: expect.any(String), exit_code: 1 } })
    expect(stderr).toContain('error [E_TRACE_NOT_FOUND]: No trace with id "svc_no_such_trace"\n')
    expect(stderr).toContain(`  fix: ${document.error.fix}\n`)
  })

  it('outside an app: E_NO_APP as a document', async () => {
    const { exitCode, document } = await svcJsonError(['route:list'], { cwd: elsewhere.path })
    expect(exitCode).toBe(1)
    expect(document.error.code).toBe('E_NO_APP')
  })

  it('an unknown option, an unknown command and a bad value are documents too', async () => {
    const option = await svcJsonError(['route:list', '--metod=GET'], { cwd: elsewhere.path })
    expect(option.document.error).toMatchObject({ code: 'E_UNKNOWN_OPTION', message: 'Unknown option --metod for svc route:list', exit_code: 1 })
    expect(option.document.error.fix).toContain('--method')
    expect(option.stderr).toBe(`error [E_UNKNOWN_OPTION]: Unknown option --metod for svc route:list\n  fix: ${option.document.error.fix}\n`)
    // --json on a command that does not declare it: the caller still asked for JSON.
    expect((await svcJsonError(['rout:list'], { cwd: elsewhere.path })).document.error).toMatchObject({ code: 'E_UNKNOWN_COMMAND', fix: expect.stringContaining('route:list') })
    expect((await svcJsonError(['trace:list', '--limit=abc'], { cwd: elsewhere.path })).document.error.code).toBe('E_BAD_OPTION')
    expect((await svcJsonError(['migrate:rollback', 'extra'], { cwd: elsewhere.path })).document.error.code).toBe('E_BAD_ARGUMENTS')
  })

  it('a database server out of reach is E_DATABASE_UNREACHABLE, with what the network said and the setting to check', async () => {
    // A port nothing listens on: taken, then freed.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    })
    for (const command of [['migrate:status'], ['schedule:list']]) {
      const { exitCode, stderr, document } = await svcJsonError(command, { cwd: example.app.dir, env: { DATABASE_URL: `http://127.0.0.1:${port}` } })
      expect(exitCode, command.join(' ')).toBe(1)
      expect(document).toEqual({
        error: {
          code: 'E_DATABASE_UNREACHABLE',
          message: `the database server does not answer (connect ECONNREFUSED 127.0.0.1:${port})`,
          fix: 'check DATABASE_URL (and DATABASE_AUTH_TOKEN) and that the database server runs; svc doctor checks the connection',
          exit_code: 1,
        },
      })
      expect(stderr).toBe(`error [E_DATABASE_UNREACHABLE]: ${document.error.message}\n  fix: ${document.error.fix}\n`)
    }
  })

  it('without --json nothing changes: stdout is empty, stderr has the lines', async () => {
    const result = await runSvc(['log:trace', 'svc_no_such_trace'], { cwd: example.app.dir })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^error \[E_TRACE_NOT_FOUND\]: No trace with id "svc_no_such_trace"\n {2}fix: .+\n$/m)
    expect(await runSvc(['route:list', '--metod=GET', '--no-json'], { cwd: elsewhere.path })).toMatchObject({ exitCode: 1, stdout: '' })
  })

  it('reads --json from the words: the last switch wins, nothing after --', () => {
    expect(asksForJson(['log:trace', '--json'])).toBe(true)
    expect(asksForJson(['log:trace', '--json=true'])).toBe(true)
    expect(asksForJson(['log:trace', '--json', '--no-json'])).toBe(false)
    expect(asksForJson(['log:trace', '--json=false'])).toBe(false)
    expect(asksForJson(['log:trace', '--', '--json'])).toBe(false)
    expect(asksForJson(['log:trace', '--path=--json'])).toBe(false)
  })

  it('an error svc did not foresee is E_UNEXPECTED, with its message and no fix', () => {
    expect(describeFailure(new TypeError('x is not a function'))).toEqual({ code: 'E_UNEXPECTED', message: 'x is not a function', fix: null, exit_code: 1 })
    expect(describeFailure('thrown text')).toEqual({ code: 'E_UNEXPECTED', message: 'thrown text', fix: null, exit_code: 1 })
  })
})
