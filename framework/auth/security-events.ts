/** The `security_events` log: refresh token reuse, account lockouts. */
import type { Database } from '../database/database.ts'

export type SecurityEventType = 'refresh_token_reuse' | 'account_locked'

export interface SecurityEvent {
  type: SecurityEventType
  userId: number | null
  ip: string | undefined
  details: Record<string, unknown>
  now: string
}

export async function recordSecurityEvent(db: Database, event: SecurityEvent): Promise<void> {
  await db.execute('insert into security_events (type, user_id, ip, details, created_at) values (?, ?, ?, ?, ?)', [
    event.type,
    event.userId,
    event.ip ?? null,
    JSON.stringify(event.details),
    event.now,
  ])
}
