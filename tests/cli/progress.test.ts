/**
 * The progress helper (cli/output/progress.ts): a live line on a terminal,
 * plain lines elsewhere; what the command prints stays readable either way.
 */
import { describe, expect, it } from 'vitest'
import { bufferIO } from '../../cli/output/io.ts'
import { createProgress } from '../../cli/output/progress.ts'

function clock(start = 1_000) {
  let time = start
  return { now: () => time, advance: (ms: number) => void (time += ms) }
}

describe('progress, not on a terminal', () => {
  it('prints one plain line per step, numbered when the total is known, and no control character', () => {
    const io = bufferIO({ cwd: '/', env: {} })
    const progress = createProgress(io, { label: 'Migrating', total: 2 })
    progress.step('create_posts')
    progress.tick()
    progress.print('Migrated: create_posts')
    progress.step('create_users')
    progress.tick()
    progress.print('Migrated: create_users')
    progress.done()
    expect(io.output.stderr).toBe('[1/2] create_posts\n[2/2] create_users\n')
    expect(io.output.stdout).toBe('Migrated: create_posts\nMigrated: create_users\n')
    expect(io.output.stderr + io.output.stdout).not.toMatch(/[\r\x1b]/)
  })

  it('counts many small items at most once per interval, and the final count once', () => {
    const io = bufferIO({ cwd: '/', env: {} })
    const time = clock()
    const progress = createProgress(io, { label: 'Replaying', total: 500, now: time.now, plainIntervalMs: 1000 })
    for (let i = 0; i < 500; i++) {
      time.advance(5) // 2.5 s in all
      progress.tick()
    }
    progress.done()
    progress.done()
    expect(io.output.stderr).toBe('Replaying: 200/500\nReplaying: 400/500\nReplaying: 500/500\n')
  })

  it('without a total: a bare count', () => {
    const io = bufferIO({ cwd: '/', env: {} })
    const progress = createProgress(io, { label: 'Jobs', now: clock().now })
    progress.tick(3)
    progress.done()
    expect(io.output.stderr).toBe('Jobs: 3\n')
  })
})

describe('progress on a terminal', () => {
  it('redraws one line on stderr in place, prints output above it, and erases it at the end', () => {
    const io = bufferIO({ cwd: '/', env: { NO_COLOR: '1' }, tty: true })
    const time = clock()
    const progress = createProgress(io, { label: 'Migrating', total: 4, now: time.now, frameMs: 0 })
    progress.step('create_posts')
    expect(io.output.stderr).toMatch(new RegExp(`^\\r\\x1b\\[2K. Migrating ${'░'.repeat(20)} 0/4 create_posts 0\\.0s$`))
    time.advance(1500)
    progress.tick()
    progress.print('Migrated: create_posts')
    progress.done()
    const frames = io.output.stderr.split('\r\x1b[2K').filter((frame) => frame !== '')
    expect(frames.at(-1)!.slice(2)).toBe(`Migrating ${'█'.repeat(5)}${'░'.repeat(15)} 1/4 create_posts 1.5s`)
    // The live line is cleared before the output line, redrawn after it, and cleared at the end.
    expect(io.output.stdout).toBe('Migrated: create_posts\n')
    expect(io.output.stderr.endsWith('\r\x1b[2K')).toBe(true)
    expect(io.output.stderr).not.toContain('\n')
  })

  it('ticks faster than a frame do not redraw; colours follow NO_COLOR', () => {
    const io = bufferIO({ cwd: '/', env: {}, tty: true })
    const time = clock()
    const progress = createProgress(io, { label: 'Replaying', total: 1000, now: time.now, frameMs: 80 })
    for (let i = 0; i < 1000; i++) progress.tick()
    progress.done()
    const frames = io.output.stderr.split('\r\x1b[2K').filter((frame) => frame !== '')
    expect(frames.length).toBe(1)
    expect(frames[0]).toContain('\x1b[1mReplaying\x1b[22m')
  })

  it('fits the live line to the terminal width', () => {
    const io = bufferIO({ cwd: '/', env: { NO_COLOR: '1' }, tty: true })
    Object.assign(io.stderr, { columns: 30 })
    const progress = createProgress(io, { label: 'Deploying', now: clock().now, frameMs: 0 })
    progress.step('a step with a very long name that would wrap the terminal line')
    progress.done()
    const frame = io.output.stderr.split('\r\x1b[2K').find((text) => text !== '')!
    expect(frame.length).toBe(29)
  })
})
