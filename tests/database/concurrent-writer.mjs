// A writer process for concurrent-writers.test.ts. It opens the database
// through the built svc/node entry, says "ready", waits for "go" on stdin (so
// that both writers start together), inserts its rows, all in parallel (half
// one by one, half in transactions of five) and prints a JSON summary.
// Usage: node concurrent-writer.mjs <svc dist/framework/node/index.js> <db file> <tag> <rows> [busyTimeoutMs]
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'

const [entry, file, tag, rowsArg, timeoutArg] = process.argv.slice(2)
const { openDatabase } = await import(pathToFileURL(entry).href)
const rows = Number(rowsArg)
const db = await openDatabase({
  url: `file:${file}`,
  storageDir: dirname(file),
  projectDir: dirname(file),
  ...(timeoutArg === undefined ? {} : { busyTimeoutMs: Number(timeoutArg) }),
})
await db.execute('create table if not exists writes (id integer primary key, tag text not null, n integer not null, unique (tag, n))')

process.stdout.write('ready\n')
await new Promise((resolve) => process.stdin.once('data', resolve))

let written = 0
const errors = []
const insert = (target, n) => target.execute('insert into writes (tag, n) values (?, ?)', [tag, n])
const work = []
const half = Math.floor(rows / 2)
for (let n = 0; n < half; n++) work.push(insert(db, n).then(() => (written += 1)))
for (let n = half; n < rows; n += 5) {
  const group = Array.from({ length: Math.min(5, rows - n) }, (_, i) => n + i)
  work.push(
    db
      .transaction(async (tx) => {
        for (const m of group) await insert(tx, m)
      })
      .then(() => (written += group.length)),
  )
}
for (const result of await Promise.allSettled(work)) {
  if (result.status === 'rejected') errors.push(String(result.reason?.message ?? result.reason))
}
db.close()
process.stdout.write(`${JSON.stringify({ tag, written, errors: [...new Set(errors)] })}\n`)
process.stdin.destroy()
