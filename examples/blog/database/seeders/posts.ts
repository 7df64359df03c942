import type { Database } from 'svc'

/**
 * Two sample posts, without an author (`user_id` null: only admins edit them;
 * the users seeder runs after this one). Run again (`svc db:seed` twice, or
 * after adding a seeder), it adds nothing: a post whose slug is taken is left
 * as it is, as the users seeder leaves a taken email (docs/database.md, "Seeders").
 */
export async function run(db: Database): Promise<void> {
  const insert = 'insert into posts (title, slug, body, published_at) values (?, ?, ?, ?) on conflict (slug) do nothing'
  await db.batch([
    { sql: insert, args: ['Hello, svc', 'hello-svc', 'The first post.', '2026-01-15T10:00:00.000Z'] },
    { sql: insert, args: ['Routing in depth', 'routing-in-depth', 'Groups, versions, constraints.', '2025-06-01T08:30:00.000Z'] },
  ])
}
