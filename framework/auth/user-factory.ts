/**
 * Sample users of the auth tables (`svc make:auth`'s `users`), stored as
 * registration stores them: a name, an email in its one stored form, and the
 * password's argon2id hash, so each can log in (with `password` unless
 * given). The parent's factory of every foreign key to users
 * (`user_id:references`, `author_id:references:users`, docs/generators.md).
 *
 * @example
 * const author = await userFactory.create(db)                         // User 1, user1@example.test, password "password"
 * await userFactory.create(db, { role: 'admin', password: 'a long passphrase' })
 * export const postFactory = defineFactory(Post, (n) => ({ title: `Post ${n}`, user_id: userFactory }))
 */
import type { Database } from '../database/database.ts'
import { defineModel, type Model } from '../model/define-model.ts'
import { defineFactory, type Factory } from '../model/factory.ts'
import { createPasswordHasher } from './passwords.ts'
import { normalizeEmail } from './text-rules.ts'
import type { UserRecord } from './users.ts'

/** A row of the users table, as `userFactory.create` answers it (`password` is the hash). */
export interface AuthUserRow extends UserRecord {
  created_at: string
  updated_at: string
}

/** What `userFactory` makes: `password` as typed (a register request's body); `create` stores its hash. */
export interface AuthUserAttributes {
  name: string
  email: string
  password: string
  /** `user` unless given. */
  role?: string
  /** 1 (active) unless given. */
  status?: number
  email_verified_at?: string | null
}

/** The password of the users the factory makes, as Laravel's UserFactory has one. */
export const FACTORY_PASSWORD = 'password'

const users = defineModel<AuthUserRow, AuthUserAttributes>({
  name: 'User',
  table: 'users',
  fillable: ['name', 'email', 'password', 'role', 'status', 'email_verified_at'],
})

/**
 * One hash per password and process, shared by the rows that have it, as Laravel's UserFactory keeps one: argon2id
 * costs about a second at OWASP's parameters (a stored hash carries them, so the app's own settings verify it).
 */
const hashes = new Map<string, Promise<string>>()

function hashOf(password: string): Promise<string> {
  let hash = hashes.get(password)
  if (hash === undefined) {
    hash = createPasswordHasher().hash(password)
    hashes.set(password, hash)
    hash.catch(() => hashes.delete(password))
  }
  return hash
}

const registeredUsers: Model<AuthUserRow, AuthUserAttributes> = {
  ...users,
  async create(db: Database, attributes: AuthUserAttributes) {
    return users.create(db, { ...attributes, email: normalizeEmail(attributes.email.trim()), password: await hashOf(attributes.password) })
  },
}

export const userFactory: Factory<AuthUserRow, AuthUserAttributes> = defineFactory(registeredUsers, (n) => ({
  name: `User ${n}`,
  email: `user${n}@example.test`,
  password: FACTORY_PASSWORD,
}))
