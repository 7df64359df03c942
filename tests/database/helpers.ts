/** A real libSQL file database in a temp folder, per test. */
import type { Database } from 'svc'
import { openDatabase } from 'svc/node'
import { tempDir } from '../helpers/app.ts'

export interface TestDatabase {
  db: Database
  dir: string
  close(): void
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const dir = tempDir('svc-db-')
  const db = await openDatabase({ storageDir: dir.path, projectDir: dir.path })
  return {
    db,
    dir: dir.path,
    close: () => {
      db.close()
      dir.remove()
    },
  }
}

export async function tableNames(db: Database): Promise<string[]> {
  const result = await db.execute("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
  return result.rows.map((row) => String(row.name))
}
