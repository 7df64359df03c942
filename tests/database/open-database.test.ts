/**
 * Opening the app's database on Node: DATABASE_URL forms, the default file
 * in storage/, WAL mode and the busy timeout on local files.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databaseUrl, DEFAULT_BUSY_TIMEOUT_MS, openDatabase, openTraceStore } from 'svc/node'
import { tempDir } from '../helpers/app.ts'

const dirs = { storageDir: '/srv/app/storage', projectDir: '/srv/app' }

describe('databaseUrl', () => {
  it.each([
    [undefined, 'file:/srv/app/storage/database.sqlite'],
    ['', 'file:/srv/app/storage/database.sqlite'],
    ['file:data/app.sqlite', 'file:/srv/app/data/app.sqlite'],
    ['file:./app.sqlite', 'file:/srv/app/app.sqlite'],
    ['file:/var/lib/app.sqlite', 'file:/var/lib/app.sqlite'],
    ['libsql://blog-acme.turso.io', 'libsql://blog-acme.turso.io'],
    ['http://127.0.0.1:8081', 'http://127.0.0.1:8081'],
    ['https://db.example.com', 'https://db.example.com'],
  ])('%j => %s', (url, expected) => {
    expect(databaseUrl(url, dirs)).toBe(expected)
  })
})

describe('openDatabase', () => {
  let cleanup: (() => void) | undefined
  afterEach(() => cleanup?.())

  it('creates storage/database.sqlite on first use, in WAL mode with a busy timeout and foreign keys', async () => {
    const dir = tempDir('svc-open-')
    const storageDir = join(dir.path, 'storage', 'nested')
    const db = await openDatabase({ storageDir, projectDir: dir.path })
    cleanup = () => {
      db.close()
      dir.remove()
    }
    expect(existsSync(join(storageDir, 'database.sqlite'))).toBe(true)
    expect((await db.execute('pragma journal_mode')).rows[0]![0]).toBe('wal')
    expect((await db.execute('pragma busy_timeout')).rows[0]![0]).toBe(DEFAULT_BUSY_TIMEOUT_MS)
    expect((await db.execute('pragma foreign_keys')).rows[0]![0]).toBe(1)
    expect(DEFAULT_BUSY_TIMEOUT_MS).toBeGreaterThanOrEqual(1000)
  })

  it('a relative file: URL lands in the project folder; the busy timeout can be set', async () => {
    const dir = tempDir('svc-open-')
    const db = await openDatabase({ url: 'file:data/custom.sqlite', storageDir: join(dir.path, 'storage'), projectDir: dir.path, busyTimeoutMs: 1234 })
    cleanup = () => {
      db.close()
      dir.remove()
    }
    expect(existsSync(join(dir.path, 'data', 'custom.sqlite'))).toBe(true)
    expect((await db.execute('pragma busy_timeout')).rows[0]![0]).toBe(1234)
  })

  it('gives a new file the page size asked for; an existing file keeps its own', async () => {
    const dir = tempDir('svc-open-')
    const open = (pageSize?: number) => openDatabase({ url: 'file:pages.sqlite', storageDir: dir.path, projectDir: dir.path, pageSize })
    const pageSizeOf = async (db: Awaited<ReturnType<typeof open>>) => (await db.execute('pragma page_size')).rows[0]![0]
    const first = await open(8192)
    cleanup = () => dir.remove()
    await first.execute('create table t (x)')
    expect(await pageSizeOf(first)).toBe(8192)
    expect((await first.execute('pragma journal_mode')).rows[0]![0]).toBe('wal')
    first.close()
    const again = await open(65536)
    expect(await pageSizeOf(again)).toBe(8192)
    again.close()
  })

  it('opens the trace store on 16 KiB pages (one row per batch of traces)', async () => {
    const dir = tempDir('svc-open-')
    const store = await openTraceStore({ storageDir: dir.path, projectDir: dir.path })
    cleanup = () => {
      store.close()
      dir.remove()
    }
    expect((await store.db.execute('pragma page_size')).rows[0]![0]).toBe(16_384)
  })
})
