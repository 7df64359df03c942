import type { Database } from 'svc'

export async function run(db: Database): Promise<void> {
  await db.batch([
    { sql: 'insert into posts (title, slug, body, published_at) values (?, ?, ?, ?)', args: ['Hello, svc', 'hello-svc', 'The first post.', '2026-01-15T10:00:00.000Z'] },
    { sql: 'insert into posts (title, slug, body, published_at) values (?, ?, ?, ?)', args: ['Routing in depth', 'routing-in-depth', 'Groups, versions, constraints.', '2025-06-01T08:30:00.000Z'] },
  ])
}
