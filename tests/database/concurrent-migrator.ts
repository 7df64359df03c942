// A migration runner process for migrator-concurrency.test.ts, run from the
// sources (`node --import jiti/register`). It opens the file through
// openDatabase (busy timeout as given), says "ready", waits for "go" on stdin
// (so that the runners start together), runs migrate() and prints
// `{ ran }` or `{ error }` as one JSON line.
// Usage: node --import jiti/register concurrent-migrator.ts <db file> <busyTimeoutMs> <holdMs>
import { dirname } from 'node:path'
import { migrate, migrationStatus, type Migration } from '../../framework/index.ts'
import { openDatabase } from '../../framework/node/index.ts'

const [file, busyTimeoutMs, holdMs] = process.argv.slice(2) as [string, string, string]

const migrations: Migration[] = [
  {
    name: '20260101000000_create_users_table',
    async up(db) {
      await db.execute('create table users (id integer primary key, name text not null)')
      // Holds the write lock long enough that the other runner meets it.
      await new Promise((resolve) => setTimeout(resolve, Number(holdMs)))
    },
  },
  { name: '20260102000000_add_email_to_users', up: async (db) => void (await db.execute('alter table users add column email text')) },
  { name: '20260103000000_create_posts_table', up: async (db) => void (await db.execute('create table posts (id integer primary key)')) },
]

const db = await openDatabase({ url: `file:${file}`, storageDir: dirname(file), projectDir: dirname(file), busyTimeoutMs: Number(busyTimeoutMs) })
await migrationStatus(db, migrations) // creates the migrations table before the race: both runners then only read at first
process.stdout.write('ready\n')
await new Promise((resolve) => process.stdin.once('data', resolve))
try {
  process.stdout.write(`${JSON.stringify({ ran: await migrate(db, migrations) })}\n`)
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`)
}
db.close()
process.exit(0)
