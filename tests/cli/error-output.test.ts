/**
 * `error [E_CODE]: message` on stderr: a message carries the app's own text
 * (an SQL error, a seeder's throw, a job's failure), and its control
 * characters reach the terminal escaped. `--json` keeps the text exact.
 */
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { CliError } from '../../cli/output/cli-error.ts'
import { bufferIO } from '../../cli/output/io.ts'
import { reportError } from '../../cli/output/print.ts'

const HOSTILE = 'bad\u0000byte \u001b[2J\u001b]0;owned\u0007 right\u202eto-left'

describe('reportError', () => {
  it('escapes the control characters of a message and its fix, and keeps the lines of a message of several', () => {
    const io = bufferIO({ cwd: tmpdir() })
    const code = reportError(io, new CliError('E_SEEDER', `Seeder posts failed: ${HOSTILE}\n  one\n  two`, { hint: `look at ${HOSTILE}` }))
    expect(code).toBe(1)
    const stderr = io.output.stderr
    expect(stderr).toBe(
      'error [E_SEEDER]: Seeder posts failed: bad\\u0000byte \\u001b[2J\\u001b]0;owned\\u0007 right\\u202eto-left\n  one\n  two\n' +
        '  fix: look at bad\\u0000byte \\u001b[2J\\u001b]0;owned\\u0007 right\\u202eto-left\n',
    )
    // eslint-disable-next-line no-control-regex
    expect(stderr).not.toMatch(/[\u0000\u001b\u0007\u202e]/)
  })

  it('escapes an unexpected failure too, and the --json document keeps the message exact', () => {
    const io = bufferIO({ cwd: tmpdir() })
    reportError(io, new Error(HOSTILE), { json: true })
    expect(io.output.stderr).toBe('error: bad\\u0000byte \\u001b[2J\\u001b]0;owned\\u0007 right\\u202eto-left\n')
    expect(JSON.parse(io.output.stdout).error.message).toBe(HOSTILE)
  })
})
