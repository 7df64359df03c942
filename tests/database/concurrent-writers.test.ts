/**
 * Two processes writing to one SQLite file at the same time, through
 * `openDatabase` from the built `svc/node` (dist/): every row must be there
 * afterwards. The busy timeout is what makes this pass. Measured here with
 * the same two writers and `busyTimeoutMs: 0` (the writer's fifth argument),
 * twice in a row: writer a wrote its 300 rows, writer b got
 * `SQLITE_BUSY: database is locked` on every statement and none of its 300
 * rows were in the file. With the default 5 s timeout all 600 are there.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/cli.ts'
import { tempDir } from '../helpers/app.ts'
import { startReportingChild } from '../helpers/child-process.ts'

const NODE_ENTRY = join(REPO_ROOT, 'dist', 'framework', 'node', 'index.js')
const WRITER = join(REPO_ROOT, 'tests', 'database', 'concurrent-writer.mjs')
const ROWS = 300

interface WriterReport {
  tag: string
  written: number
  errors: string[]
}

function startWriter(file: string, tag: string, timeoutMs?: number) {
  return startReportingChild<WriterReport>([WRITER, NODE_ENTRY, file, tag, String(ROWS), ...(timeoutMs === undefined ? [] : [String(timeoutMs)])], `writer ${tag}`)
}

describe('two processes writing to one file database', () => {
  let cleanup: (() => void) | undefined
  afterEach(() => cleanup?.())
  beforeAll(() => {
    if (!existsSync(NODE_ENTRY)) throw new Error(`${NODE_ENTRY} is missing: run \`npm run build\` first (npm test does)`)
  })

  it('keeps every row of both writers (busy timeout)', async () => {
    const dir = tempDir('svc-concurrent-')
    const file = join(dir.path, 'shared.sqlite')
    const a = startWriter(file, 'a')
    await a.ready // the first writer creates the table; then both start at once
    const b = startWriter(file, 'b')
    await b.ready
    a.go()
    b.go()
    const reports = await Promise.all([a.done, b.done])

    const client = createClient({ url: `file:${file}` })
    cleanup = () => {
      client.close()
      dir.remove()
    }
    expect(reports).toEqual([
      { tag: 'a', written: ROWS, errors: [] },
      { tag: 'b', written: ROWS, errors: [] },
    ])
    const counts = await client.execute('select tag, count(*) as n, count(distinct n) as distinct_n from writes group by tag order by tag')
    expect(counts.rows.map((row) => [row.tag, Number(row.n), Number(row.distinct_n)])).toEqual([
      ['a', ROWS, ROWS],
      ['b', ROWS, ROWS],
    ])
  })
})
