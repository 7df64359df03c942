/**
 * The auth tables, as SQL kept in one place: `authMigrations` (values, for
 * fetch runtimes and tests) and the files `svc make:auth` writes (rendered by
 * the CLI, cli/project/migration-file.ts) are both built from it. Timestamps are ISO 8601 UTC text written by the app's clock
 * (`toISOString()`), so they compare correctly as strings.
 */
import type { Database } from '../database/database.ts'
import type { Migration } from '../database/migrator.ts'

export interface MigrationSource {
  /** `<timestamp>_<name>`: the file name without extension, and the migration's name. */
  name: string
  description: string
  up: string[]
  down: string[]
}

const NOW = "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"

export const AUTH_MIGRATION_SOURCES: readonly MigrationSource[] = [
  {
    name: '20260101000100_create_users_table',
    description: 'users (email unique, compared case-insensitively)',
    up: [
      `create table users (
    id integer primary key autoincrement,
    name text not null,
    email text not null collate nocase unique,
    password text not null,
    role text not null default 'user',
    status integer not null default 1,
    token_version integer not null default 0,
    login_attempts integer not null default 0,
    locked_until text,
    email_verified_at text,
    created_at text not null default ${NOW},
    updated_at text not null default ${NOW}
  )`,
    ],
    down: ['drop table users'],
  },
  {
    name: '20260101000200_create_refresh_tokens_table',
    description: 'refresh tokens, stored hashed, in rotation families',
    up: [
      `create table refresh_tokens (
    id text primary key,
    user_id integer not null references users (id) on delete cascade,
    family_id text not null,
    token_hash text not null unique,
    expires_at text not null,
    created_at text not null,
    revoked_at text,
    revoked_reason text,
    replaced_by text
  )`,
      'create index refresh_tokens_family_id on refresh_tokens (family_id)',
      'create index refresh_tokens_user_id on refresh_tokens (user_id)',
    ],
    down: ['drop table refresh_tokens'],
  },
  {
    name: '20260101000300_create_one_time_tokens_table',
    description: 'single-use tokens for email verification and password reset, stored hashed',
    up: [
      `create table one_time_tokens (
    id integer primary key autoincrement,
    user_id integer not null references users (id) on delete cascade,
    purpose text not null,
    token_hash text not null unique,
    expires_at text not null,
    used_at text,
    created_at text not null
  )`,
      'create index one_time_tokens_user_id on one_time_tokens (user_id, purpose)',
    ],
    down: ['drop table one_time_tokens'],
  },
  {
    name: '20260101000400_create_security_events_table',
    description: 'security events (refresh token reuse, lockouts)',
    up: [
      `create table security_events (
    id integer primary key autoincrement,
    type text not null,
    user_id integer,
    ip text,
    details text,
    created_at text not null
  )`,
      'create index security_events_user_id on security_events (user_id)',
    ],
    down: ['drop table security_events'],
  },
  {
    name: '20260101000500_create_rate_limits_table',
    description: 'counters of the database-backed throttle store (THROTTLE_STORE=database)',
    up: [
      `create table rate_limits (
    key text primary key,
    hits integer not null,
    reset_at integer not null
  )`,
      'create index rate_limits_reset_at on rate_limits (reset_at)',
    ],
    down: ['drop table rate_limits'],
  },
]

export const API_KEYS_MIGRATION_SOURCE: MigrationSource = {
  name: '20260101000600_create_api_keys_table',
  description: 'scoped API keys, stored hashed (svc make:apikey creates them)',
  up: [
    `create table api_keys (
    id integer primary key autoincrement,
    name text not null,
    prefix text not null,
    key_hash text not null unique,
    scopes text not null,
    expires_at text,
    revoked_at text,
    created_at text not null
  )`,
  ],
  down: ['drop table api_keys'],
}

export function toMigration(source: MigrationSource): Migration {
  return {
    name: source.name,
    async up(db: Database) {
      for (const sql of source.up) await db.execute(sql)
    },
    async down(db: Database) {
      for (const sql of source.down) await db.execute(sql)
    },
  }
}

/** The auth migrations as values: `migrate(db, [...authMigrations, ...yours])`. */
export const authMigrations: Migration[] = AUTH_MIGRATION_SOURCES.map(toMigration)
export const apiKeysMigration: Migration = toMigration(API_KEYS_MIGRATION_SOURCE)
