/** `trace:users`: who made the recent traced requests, named from the app's users table. */
import type { TraceUserJson, TraceUsersJson } from '../contract/traces.ts'
import { loadConfig, openProjectDatabase } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import type { CommandIO } from '../output/io.ts'
import { openTraceStoreToRead } from './open-store.ts'
import { usersById } from './sign-as.ts'

export async function traceUsers(io: CommandIO, project: Project, limit: number): Promise<TraceUsersJson> {
  const config = loadConfig(project)
  const store = await openTraceStoreToRead(io, project, config)
  const seen = new Map<string, { user_id: number | string; traces: number; last_seen: string }>()
  let scanned = 0
  try {
    for await (const record of store.newest()) {
      if (++scanned > limit) {
        scanned = limit
        break
      }
      if (record.user_id === null) continue
      const key = String(record.user_id)
      const entry = seen.get(key)
      if (entry === undefined) seen.set(key, { user_id: record.user_id, traces: 1, last_seen: record.timestamp })
      else {
        entry.traces++
        if (record.timestamp > entry.last_seen) entry.last_seen = record.timestamp
      }
    }
  } finally {
    store.close()
  }
  const named = seen.size === 0 ? new Map() : await namesOf(project, config, [...seen.values()].map((user) => user.user_id))
  const users: TraceUserJson[] = [...seen.entries()].map(([key, user]) => {
    const row = named.get(key)
    return { user_id: user.user_id, email: row?.email ?? null, name: row?.name ?? null, role: row?.role ?? null, traces: user.traces, last_seen: user.last_seen }
  })
  users.sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0))
  return { scanned, users }
}

async function namesOf(project: Project, config: ReturnType<typeof loadConfig>, ids: Array<number | string>) {
  let db: Awaited<ReturnType<typeof openProjectDatabase>> | undefined
  try {
    db = await openProjectDatabase(project, config)
    return await usersById(db, ids)
  } catch {
    return new Map() // the database cannot be opened: the ids alone
  } finally {
    db?.close()
  }
}
