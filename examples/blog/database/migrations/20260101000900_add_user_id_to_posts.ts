/**
 * A post belongs to the user who wrote it: createPost sets `user_id` from the token, and only that user or an
 * admin may edit it. A new migration, not an edit of create_posts_table, so that a database made before it
 * gets the column from `svc migrate`. Posts that existed before (and the seeded ones) have no author (null):
 * only admins edit those. A deleted user's posts stay, without an author.
 */
import type { Database } from 'svc'

export async function up(db: Database): Promise<void> {
  await db.execute('alter table posts add column user_id integer references users (id) on delete set null')
  await db.execute('create index posts_user_id on posts (user_id)')
}

export async function down(db: Database): Promise<void> {
  // SQLite refuses to drop a column an index covers: the index goes first.
  await db.execute('drop index posts_user_id')
  await db.execute('alter table posts drop column user_id')
}
