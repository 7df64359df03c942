/** The `security_events` log: refresh token reuse, account lockouts. */
import type { InValue } from '@libsql/client'
import type { Database, Statement } from '../database/database.ts'

export type SecurityEventType = 'refresh_token_reuse' | 'account_locked'

export interface SecurityEvent {
  type: SecurityEventType
  userId: number | null
  ip: string | undefined
  details: Record<string, unknown>
  now: string
}

/** A number for an event's details that only the database knows yet (a subquery in the same batch), under `name`. */
export interface CountedDetail {
  name: string
  sql: string
  args: InValue[]
}

/** The insert of an event, to run alone or in a batch. */
export function securityEventInsert(event: SecurityEvent, counted?: CountedDetail): Statement {
  const details = counted === undefined ? '?' : `json_set(?, '$.${counted.name}', (${counted.sql}))`
  return {
    sql: `insert into security_events (type, user_id, ip, details, created_at) values (?, ?, ?, ${details}, ?)`,
    args: [event.type, event.userId, event.ip ?? null, JSON.stringify(event.details), ...(counted?.args ?? []), event.now],
  }
}

export async function recordSecurityEvent(db: Database, event: SecurityEvent): Promise<void> {
  await db.execute(securityEventInsert(event))
}
