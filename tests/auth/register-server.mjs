// A second process for concurrent-registration.test.ts: the same auth app as
// the test's, from the built dist/, on the same SQLite file, served on
// 127.0.0.1 (a free port). Prints `ready <port>`; answers `mails` on stdin
// with one JSON line (the addresses mailed so far); exits when stdin closes.
// Usage: node register-server.mjs <repo root> <db file> <lock wait ms> <env JSON>
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'

const [root, file, lockWait, envJson] = process.argv.slice(2)
const svc = await import(pathToFileURL(join(root, 'dist/framework/index.js')).href)
const node = await import(pathToFileURL(join(root, 'dist/framework/node/index.js')).href)

const database = await node.openDatabase({ url: `file:${file}`, storageDir: dirname(file), projectDir: dirname(file), busyTimeoutMs: Number(lockWait) })
const mailer = svc.memoryMailer()
const app = svc.createApp({
  config: svc.resolveConfig(JSON.parse(envJson)),
  database,
  plugins: [svc.authPlugin({ mailer, argon2id: node.nativeArgon2id })],
})
const server = await node.serve(app, { port: 0, host: '127.0.0.1' })
process.stdout.write(`ready ${server.port}\n`)

const input = createInterface({ input: process.stdin })
input.on('line', (line) => {
  if (line.trim() === 'mails') process.stdout.write(`${JSON.stringify(mailer.messages.map((m) => m.to))}\n`)
})
input.on('close', () => {
  void server.close().then(() => {
    database.close()
    process.exit(0)
  })
})
