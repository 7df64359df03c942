/**
 * What the blog's feature tests share: a SQLite file of their own, the app's
 * settings for tests (a cheap password hash: they sign users up, they do not
 * measure hashing), and a user signed up through the API.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { resolveConfig, type AppConfig, type Database, type EnvRecord } from 'svc'
import { openDatabase } from 'svc/node'
import type { TestClient } from 'svc/testing'

export const TEST_PASSWORD = 'correct horse battery staple'

export interface TestDatabase {
  dir: string
  db: Database
  /** Closes the database and deletes its folder. */
  remove: () => void
}

/** A database file in a fresh temporary folder named after `prefix` (not migrated: some tests migrate in steps). */
export async function openTestDatabase(prefix: string): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const db = await openDatabase({ url: `file:${join(dir, 'database.sqlite')}`, storageDir: dir, projectDir: dir })
  return {
    dir,
    db,
    remove: () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The app's settings in tests, with `overrides` on top. */
export function testConfig(overrides: EnvRecord = {}): AppConfig {
  return resolveConfig({
    APP_ENV: 'test',
    JWT_SECRET: 'a-test-secret-that-is-at-least-32-characters',
    PASSWORD_HASH_MEMORY_KIB: '64',
    PASSWORD_HASH_ITERATIONS: '1',
    ...overrides,
  })
}

export interface SignedUpUser {
  id: number
  token: string
}

/** Signs `email` up through `POST /api/auth/register` (name = email), expecting 201. */
export async function signUp(client: TestClient, email: string): Promise<SignedUpUser> {
  const response = await client.post('/api/auth/register', { json: { name: email, email, password: TEST_PASSWORD, password_confirmation: TEST_PASSWORD } })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return { token: response.body.data.token, id: response.body.data.user.id }
}
