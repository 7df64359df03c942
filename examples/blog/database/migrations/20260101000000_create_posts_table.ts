import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute(`create table posts (
    id integer primary key autoincrement,
    title text not null,
    slug text not null unique,
    body text not null default '',
    published_at text,
    created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`)
  await db.execute('create index posts_published_at on posts (published_at)')
}

export async function down(db: Database): Promise<void> {
  await db.execute('drop table posts')
}
