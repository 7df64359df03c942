import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
const dir = mkdtempSync(join(tmpdir(), 'ti-'))
const c = createClient({ url: `file:${join(dir, 'a.sqlite')}` })
await c.execute('pragma journal_mode = wal'); await c.execute('pragma synchronous = normal')
await c.execute('create table t (id text primary key, a integer, b text, record text)')
const rec = JSON.stringify({ x: 'y'.repeat(800) })
const N = 5000
let t0 = performance.now()
for (let i = 0; i < N; i += 200) {
  const args: any[] = []; const rows: string[] = []
  for (let j = 0; j < 200; j++) { args.push(`id${i + j}`, i + j, 'GET', rec); rows.push('(?, ?, ?, ?)') }
  await c.batch([{ sql: `insert into t values ${rows.join(',')}`, args }], 'write')
}
console.log('multirow batch', ((performance.now() - t0) * 1000 / N).toFixed(1), 'us/row')
t0 = performance.now()
for (let i = 0; i < N; i += 200) {
  const stmts = []
  for (let j = 0; j < 200; j++) stmts.push({ sql: 'insert into t values (?, ?, ?, ?)', args: [`x${i + j}`, i + j, 'GET', rec] })
  await c.batch(stmts, 'write')
}
console.log('stmt batch', ((performance.now() - t0) * 1000 / N).toFixed(1), 'us/row')
t0 = performance.now()
for (let i = 0; i < N; i += 200) {
  const tx = await c.transaction('write')
  for (let j = 0; j < 200; j++) await tx.execute({ sql: 'insert into t values (?, ?, ?, ?)', args: [`y${i + j}`, i + j, 'GET', rec] })
  await tx.commit()
}
console.log('tx execute', ((performance.now() - t0) * 1000 / N).toFixed(1), 'us/row')
