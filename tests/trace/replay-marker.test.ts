/**
 * The replay marker's key and signature, in process: a marker verifies only
 * under the key that signed it and for the trace id it names; a key file that
 * is not a key is refused with a clear error, never replaced (a new key would
 * turn past replays into ordinary requests).
 */
import { createHmac } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { readReplayKey, replayKeyFile, replayKeyToSign, replayMarker, verifiedReplayOf } from '../../cli/trace/replay-marker.ts'

let project: { storageDir: string }

beforeEach(() => {
  project = { storageDir: mkdtempSync(join(tmpdir(), 'svc-replay-key-')) }
})
afterEach(() => rmSync(project.storageDir, { recursive: true, force: true }))

it('is written by the first replay (mode 600), read as is after, and never by a reader', () => {
  expect(readReplayKey(project)).toBeUndefined()
  expect(() => statSync(replayKeyFile(project))).toThrow()
  const key = replayKeyToSign(project)
  expect(statSync(replayKeyFile(project)).mode & 0o777).toBe(0o600)
  expect(replayKeyToSign(project).equals(key)).toBe(true)
  expect(readReplayKey(project)!.equals(key)).toBe(true)
})

it('verifies only the trace id it signed, under the key that signed it', () => {
  const key = replayKeyToSign(project)
  const request = { method: 'GET', path: '/api/posts', query: 'page=2' }
  const marker = replayMarker({ key, redactFields: new Set() }, 'svc_abc', { method: 'GET', url: 'http://localhost/api/posts?page=2' })
  expect(verifiedReplayOf(key, marker, request)).toBe('svc_abc')
  expect(verifiedReplayOf(key, marker.replace('svc_abc', 'svc_abd'), request)).toBeNull()
  expect(verifiedReplayOf(key, 'svc_abc', request)).toBeNull()
  expect(verifiedReplayOf(key, `svc_abc.${marker.slice(-10)}`, request)).toBeNull()
  expect(verifiedReplayOf(Buffer.alloc(32, 1), marker, request)).toBeNull()
  expect(verifiedReplayOf(undefined, marker, request)).toBeNull()
})

it('verifies only on the request it was signed for: another method, path or query is a reused marker', () => {
  const key = replayKeyToSign(project)
  const marker = replayMarker({ key, redactFields: new Set() }, 'svc_abc', { method: 'GET', url: 'http://localhost/api/posts?page=2' })
  expect(verifiedReplayOf(key, marker, { method: 'DELETE', path: '/api/posts', query: 'page=2' })).toBeNull()
  expect(verifiedReplayOf(key, marker, { method: 'GET', path: '/api/users', query: 'page=2' })).toBeNull()
  expect(verifiedReplayOf(key, marker, { method: 'GET', path: '/api/posts', query: 'page=3' })).toBeNull()
  expect(verifiedReplayOf(key, marker, { method: 'GET', path: '/api/posts', query: '' })).toBeNull()
  // Signed before markers were bound to the request (the trace id alone): no longer a replay.
  const old = `svc_abc.${createHmac('sha256', key).update('svc replay-of svc_abc').digest('base64url')}`
  expect(verifiedReplayOf(key, old, { method: 'GET', path: '/api/posts', query: 'page=2' })).toBeNull()
})

it('verifies against the query as the trace records it: a parameter the trace redacts is signed as [REDACTED]', () => {
  const key = replayKeyToSign(project)
  const marker = replayMarker({ key, redactFields: new Set(['token']) }, 'svc_abc', { method: 'GET', url: 'http://localhost/api/verify?token=s3cret&x=1' })
  expect(verifiedReplayOf(key, marker, { method: 'GET', path: '/api/verify', query: 'token=[REDACTED]&x=1' })).toBe('svc_abc')
})

it('refuses a key file that is not a key, with a clear error, and leaves it as it was', () => {
  mkdirSync(join(project.storageDir, 'keys'))
  writeFileSync(replayKeyFile(project), 'not a key\n')
  expect(() => replayKeyToSign(project)).toThrow(expect.objectContaining({ code: 'E_REPLAY_KEY', message: expect.stringContaining('is not a replay key') }))
  expect(readFileSync(replayKeyFile(project), 'utf8')).toBe('not a key\n')
  expect(readReplayKey(project)).toBeUndefined()
})
