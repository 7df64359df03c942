/**
 * valibot building blocks svc's own schemas use, for JSON input as people
 * write it: an object that is not a list, lengths in characters (Unicode code
 * points, as JSON Schema's `minLength`/`maxLength` count them, not UTF-16
 * units), and an email pattern of svc's choosing. Each keeps valibot's own
 * type (`object`, `min_length`, `max_length`, `email`), so messages and JSON
 * Schema conversion treat them as the built-in ones.
 */
import * as v from 'valibot'
import { namedCheck } from './issues.ts'

/** `v.object(entries)` that refuses a list (valibot's own takes `[...]` as an object with missing keys). */
export function jsonObject<const E extends v.ObjectEntries>(entries: E): v.ObjectSchema<E, undefined> {
  const { '~standard': _standard, ...object } = v.object(entries)
  const run = object['~run']
  return v._standardSchema<v.ObjectSchema<E, undefined>>({
    ...object,
    '~run'(dataset, config) {
      if (!Array.isArray(dataset.value)) return run.call(this, dataset, config)
      v._addIssue(this, 'type', dataset, config)
      return dataset as unknown as ReturnType<typeof run>
    },
  })
}

/**
 * At least `min` characters, counted as people and JSON Schema's `minLength` count them (code points): valibot's
 * `v.minLength` counts UTF-16 units, so an emoji is two. Same type as `v.minLength`: the same messages and JSON Schema.
 * @example v.pipe(v.string(), minChars(2))
 */
export function minChars<const N extends number>(min: N): v.MinLengthAction<string, N, undefined> {
  return countingCharacters(v.minLength<string, N>(min), (length, limit) => length < limit)
}

/**
 * At most `max` characters (code points, as JSON Schema's `maxLength`): with valibot's `v.maxLength(255)` a name of
 * 200 emoji was refused as "greater than 255 characters", while the API description said it was fine.
 * @example v.pipe(v.string(), v.trim(), maxChars(255))
 */
export function maxChars<const N extends number>(max: N): v.MaxLengthAction<string, N, undefined> {
  return countingCharacters(v.maxLength<string, N>(max), (length, limit) => length > limit)
}

/** valibot's length action, counting code points instead of UTF-16 units. */
function countingCharacters<A extends v.MinLengthAction<string, number, undefined> | v.MaxLengthAction<string, number, undefined>>(
  action: A,
  fails: (length: number, limit: number) => boolean,
): A {
  return {
    ...action,
    '~run'(dataset: Parameters<A['~run']>[0], config: Parameters<A['~run']>[1]) {
      if (dataset.typed) {
        const length = characters(dataset.value)
        if (fails(length, action.requirement)) v._addIssue(action, 'length', dataset, config, { received: `${length}` })
      }
      return dataset
    },
  }
}

/** One `@`, no spaces, a dot in the domain: what a mail server can be asked to deliver, without guessing more. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/

/** valibot's `email` action with svc's pattern (valibot's own refuses some deliverable addresses). */
export function emailAddress(): v.EmailAction<string, undefined> {
  return { ...v.email<string>(), requirement: EMAIL_PATTERN }
}

function characters(value: string): number {
  let count = 0
  for (const _ of value) count++
  return count
}

/**
 * Refuses a NUL character (rule `without_nul`): libSQL stores such text whole
 * but reads it back cut at the NUL. For multi-line text, where `visibleText()`
 * (no control characters at all) would refuse the line breaks.
 */
export function withoutNul() {
  return v.check(namedCheck('without_nul', (text: string) => !text.includes('\0')))
}

/**
 * An ISO 8601 timestamp with its time and zone (`2026-01-03T10:00:00+02:00`), kept in one spelling: UTC with
 * milliseconds (`2026-01-03T08:00:00.000Z`, what `toISOString()` writes), so that a text column of them sorts
 * and compares in time order (`+02:00` beside `Z`, or `10:00:00Z` beside `10:00:00.500Z`, sort wrong as text).
 * A day the calendar does not have (`2026-02-30`) is refused, not moved into March. Rule `timestamp`.
 *
 * @example v.object({ starts_at: utcTimestamp(), ends_at: v.optional(v.nullable(utcTimestamp())) })
 */
export function utcTimestamp() {
  return v.pipe(v.string(), v.isoTimestamp(), v.check(namedCheck('timestamp', isCalendarInstant, 'iso_timestamp')), toUtcSpelling())
}

/**
 * The `type` of utcTimestamp's last step. valibot's `transform` could turn a value into anything, so JSON
 * Schema conversion stops at one (reading a request, it dropped what a pipe said after it) or warns about it
 * (reading a response); this one keeps a date-time string a date-time string, and the conversion reads past it.
 */
export const UTC_SPELLING_ACTION = 'to_utc_spelling'

function toUtcSpelling(): v.BaseTransformation<string, string, never> {
  return { ...v.transform((text: string) => new Date(text).toISOString()), type: UTC_SPELLING_ACTION }
}

function isCalendarInstant(text: string): boolean {
  const [, year, month, day] = /^(\d{4})-(\d{2})-(\d{2})/.exec(text) ?? []
  if (year === undefined || Number.isNaN(new Date(text).getTime())) return false
  const date = new Date(0)
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day))
  return date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day)
}
