/**
 * `utcTimestamp()`, the rule make:crud's `date` fields use: an ISO 8601
 * timestamp in any zone is kept in one spelling (UTC, milliseconds), so a text
 * column of them sorts in time order; a day the calendar lacks is refused.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { checkWith, createApp, defineRoutes, utcTimestamp } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'

const Event = v.object({ starts_at: utcTimestamp(), ends_at: v.optional(v.nullable(utcTimestamp())) })

describe('utcTimestamp()', () => {
  it.each([
    ['2026-01-03T10:00:00Z', '2026-01-03T10:00:00.000Z'],
    ['2026-01-03T10:00:00.5Z', '2026-01-03T10:00:00.500Z'],
    ['2026-01-03T10:00:00+02:00', '2026-01-03T08:00:00.000Z'],
    ['2026-01-01T01:00:00+02:00', '2025-12-31T23:00:00.000Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
  ])('keeps %s as %s', async (given, kept) => {
    expect(await checkWith(Event, { starts_at: given })).toEqual({ ok: true, value: { starts_at: kept } })
  })

  it('so that the spellings sort in time order as text', async () => {
    const given = ['2026-01-03T10:00:00.500Z', '2026-01-03T10:00:00Z', '2026-01-03T11:30:00+02:00']
    const kept = await Promise.all(given.map(async (text) => ((await checkWith(Event, { starts_at: text })) as { value: { starts_at: string } }).value.starts_at))
    expect([...kept].sort()).toEqual(['2026-01-03T09:30:00.000Z', '2026-01-03T10:00:00.000Z', '2026-01-03T10:00:00.500Z'])
  })

  it.each(['2026-02-30T10:00:00Z', '2026-02-29T10:00:00Z', '2026-04-31T00:00:00Z', '2026-01-03', 'tomorrow', '2026-13-01T00:00:00Z'])(
    'refuses %s with the timestamp message',
    async (given) => {
      expect(await checkWith(Event, { starts_at: given })).toEqual({ ok: false, errors: { starts_at: ['The starts at field must be a valid ISO 8601 timestamp.'] } })
    },
  )

  it('a route declaring it hands the handler the UTC spelling, and answers 422 for a day that does not exist', async () => {
    const app = createApp({
      config: testConfig(),
      api: defineRoutes((r) => {
        r.post('/events', async (c) => c.body()).body(Event)
      }),
    })
    const client = createTestClient(app)
    expect((await client.post('/api/events', { json: { starts_at: '2026-06-01T09:00:00-04:00', ends_at: null } })).body.data).toEqual({
      starts_at: '2026-06-01T13:00:00.000Z',
      ends_at: null,
    })
    expect((await client.post('/api/events', { json: { starts_at: '2026-06-31T09:00:00Z' } })).status).toBe(422)
  })
})
