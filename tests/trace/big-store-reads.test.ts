/**
 * Reading a week of traces must not hold them all: `log:stats` and `log:top`
 * (`store.search`), `log:slow` (`order: 'slowest'`) and a filtered count used
 * to collect every matching record, bodies and statements included, before
 * keeping a row, the top few or a number of them. On 100,000 traces with
 * 4 KB bodies `log:stats` took 880 MB, and under a 150 MB heap it died.
 * Here a child process with a 64 MB heap reads a store holding 160 MB of
 * bodies.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { buildRecord, resolveTraceConfig } from 'svc/trace'
import { openTraceStore } from 'svc/node'
import { tempDir } from '../helpers/app.ts'
import { rawTrace } from './helpers.ts'

const READER = fileURLToPath(new URL('./fixtures/read-store-small-heap.ts', import.meta.url))
const TRACES = 20_000
const BATCH = 100
const dir = tempDir('svc-big-store-')
const file = join(dir.path, 'traces.sqlite')

beforeAll(async () => {
  const store = await openTraceStore({ storageDir: dir.path, projectDir: dir.path })
  const config = resolveTraceConfig({})
  const template = buildRecord(rawTrace(0), config, null)
  for (let start = 0; start < TRACES; start += BATCH) {
    const records = []
    for (let n = start; n < start + BATCH; n++) {
      records.push({
        ...template,
        trace_id: `svc_${String(n).padStart(32, '0')}`,
        timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
        // Every fourth a 500; twenty long ones (the longest the newest), the rest 0 to 9 ms with many ties.
        status_code: n % 4 === 0 ? 500 : 200,
        duration_ms: n % 1000 === 999 ? 5000 + n : n % 10,
        // 8 KB each, all different: 160 MB of strings once decoded.
        body: { content: { text: `${n}:${'b'.repeat(8000)}` }, size: 8010, truncated: false, incomplete: false },
      })
    }
    await store.writeRecords(records)
  }
  store.close()
}, 120_000)

afterAll(() => dir.remove())

it('log:stats, log:slow and a filtered count read 20,000 traces of 8 KB within a 64 MB heap, with the right answers', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--max-old-space-size=64', '--import', 'jiti/register', READER, file], {
    maxBuffer: 1 << 20,
  })
  expect(JSON.parse(stdout)).toEqual({
    rows: TRACES,
    slowest: [19_999, 18_999, 17_999].map((n) => `svc_${String(n).padStart(32, '0')}`),
    errors: TRACES / 4,
  })
}, 120_000)
