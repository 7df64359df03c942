/** The progress helper of long-running commands (cli/output/progress.ts): a redrawn line on a terminal, plain lines otherwise, always on stderr. */
import { describe, expect, it } from 'vitest'
import { bufferIO } from '../../cli/output/io.ts'
import { startProgress } from '../../cli/output/progress.ts'

describe('startProgress', () => {
  it('plain lines when stderr is not a terminal: one per item, one per tenth of counted steps', () => {
    const io = bufferIO({ cwd: '/' })
    const items = startProgress(io, { total: 2, label: 'benchmark' })
    items.item('GET /a')
    items.item('GET /b')
    items.finish()
    const steps = startProgress(io, { total: 20, label: 'GET /a x 20' })
    for (let i = 0; i < 20; i++) steps.tick()
    steps.finish()
    const lines = io.output.stderr.split('\n').filter(Boolean)
    expect(lines.slice(0, 2)).toEqual(['benchmark [1/2] GET /a', 'benchmark [2/2] GET /b'])
    expect(lines.slice(2)).toEqual(Array.from({ length: 10 }, (_, i) => `GET /a x 20: ${(i + 1) * 2}/20`))
    expect(io.output.stdout).toBe('')
    expect(io.output.stderr).not.toContain('\r')
  })

  it('one line redrawn in place on a terminal, wiped at the end', () => {
    const io = bufferIO({ cwd: '/', tty: true })
    const progress = startProgress(io, { total: 4, label: 'benchmark', redrawMs: 0 })
    progress.item('GET /a')
    progress.tick()
    progress.finish()
    const frames = io.output.stderr.split('\r\x1b[2K')
    expect(frames).toEqual(['', 'benchmark [#####···············] 1/4 GET /a', 'benchmark [##########··········] 2/4 GET /a', ''])
    expect(io.output.stderr).not.toContain('\n')
  })
})
