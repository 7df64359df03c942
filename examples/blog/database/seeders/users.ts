/**
 * An admin (who may edit and delete any post) and a regular user. Passwords come from
 * ADMIN_PASSWORD / USER_PASSWORD, or are generated and printed once.
 */
import { createPasswordHasher, type Database } from 'svc'

export async function run(db: Database): Promise<void> {
  const hasher = createPasswordHasher()
  for (const [name, email, role, variable] of [
    ['Admin', 'admin@example.com', 'admin', 'ADMIN_PASSWORD'],
    ['Reader', 'user@example.com', 'user', 'USER_PASSWORD'],
  ] as const) {
    const given = process.env[variable]
    const password = given ?? crypto.randomUUID()
    const result = await db.execute('insert or ignore into users (name, email, password, role) values (?, ?, ?, ?)', [
      name,
      email,
      await hasher.hash(password),
      role,
    ])
    if (result.rowsAffected === 1 && given === undefined) console.warn(`Seeded ${role} ${email} with password ${password}`)
  }
}
