/**
 * cli/schemas/to-json-schema.ts, the one conversion route:rules and
 * make:openapi use: valibot schemas (the example's, svc's auth bodies),
 * Standard Schemas that carry their own JSON Schema, and the rest; what
 * cannot be expressed is a warning naming the field.
 */
import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { namedCheck } from '../../framework/validation/issues.ts'
import { utcTimestamp } from '../../framework/validation/rules.ts'
import { toJsonSchema } from '../../cli/schemas/to-json-schema.ts'
import { LoginBody, RegisterBody } from '../../framework/auth/validation.ts'
import { ListQuery, Post, PostInput } from '../../examples/blog/app/controllers/posts.ts'

const input = (schema: StandardSchemaV1) => toJsonSchema(schema, { direction: 'input' })

describe('valibot schemas', () => {
  it('keeps the length rules after trim() (the input a client sends), OpenAPI 3.0 nullable', () => {
    expect(input(PostInput)).toEqual({
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 200, 'x-rules': ['visible'] },
          body: { type: 'string', maxLength: 100000, default: '', 'x-rules': ['without_nul'] },
          published_at: { type: 'string', format: 'date-time', nullable: true, 'x-rules': ['timestamp'] },
        },
        required: ['title'],
      },
      warnings: [],
    })
  })

  it('a query schema with a transform: the string the client sends, and no empty `required` (invalid in OpenAPI 3.0)', () => {
    expect(input(ListQuery).schema).toEqual({
      type: 'object',
      properties: {
        // The bounds a pattern cannot state, in words (paginationQuery's).
        page: { type: 'string', pattern: '^\\d+$', default: '1', description: 'A whole number from 1 to 1,000,000 (default 1).' },
        per_page: { type: 'string', pattern: '^\\d+$', default: '20', description: 'A whole number from 1 to 100 (default 20).' },
      },
    })
  })

  it("svc's own auth bodies convert; their named checks (visible text, the password confirmation) are listed under x-rules, not lost", () => {
    expect(input(LoginBody)).toEqual({
      schema: {
        type: 'object',
        properties: {
          email: { type: 'string', minLength: 1, maxLength: 254, 'x-rules': ['visible'] },
          password: { type: 'string', minLength: 1, maxLength: 256 },
        },
        required: ['email', 'password'],
      },
      warnings: [],
    })
    const register = input(RegisterBody)
    expect(register.schema).toMatchObject({
      required: ['name', 'email', 'password', 'password_confirmation'],
      properties: { email: { format: 'email' }, password: { minLength: 8, maxLength: 256, 'x-rules': ['visible'] } },
      'x-rules': ['confirmed'],
    })
    expect(register.warnings).toEqual([])
  })

  it('an unnamed check stays a warning; a namedCheck is listed under x-rules', () => {
    const Body = v.object({
      slug: v.pipe(v.string(), v.check((slug) => !slug.includes('--'))),
      code: v.pipe(v.string(), v.check(namedCheck('promo_code', (code: string) => code.startsWith('P')))),
    })
    const { schema, warnings } = input(Body)
    expect(warnings).toEqual([{ field: 'slug', message: 'The "check" action cannot be converted to JSON Schema.' }])
    expect(schema).toMatchObject({ properties: { slug: { type: 'string' }, code: { type: 'string', 'x-rules': ['promo_code'] } } })
  })

  it('OpenAPI 3.0: a named schema becomes a $ref, and a nullable reference is wrapped in allOf (no keyword beside $ref)', () => {
    const Author = v.object({ name: v.string() })
    const Book = v.object({ author: Author, editor: v.nullable(Author), title: v.nullable(v.string()), none: v.null() })
    const { schema } = toJsonSchema(Book, { direction: 'output', definitions: { Author } })
    expect(schema).toEqual({
      type: 'object',
      properties: {
        author: { $ref: '#/$defs/Author' },
        editor: { allOf: [{ $ref: '#/$defs/Author' }], nullable: true },
        title: { type: 'string', nullable: true },
        none: { enum: [null], nullable: true },
      },
      required: ['author', 'editor', 'title', 'none'],
      $defs: { Author: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    })
  })

  it('names the field of what cannot be converted, nested and in lists, and converts the rest', () => {
    const Order = v.object({
      customer: v.object({ email: v.pipe(v.string(), v.email()), since: v.date() }),
      lines: v.array(v.object({ sku: v.pipe(v.string(), v.check((sku) => sku.startsWith('SKU'), 'bad sku')), quantity: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
      note: v.optional(v.string()),
    })
    const { schema, warnings } = input(Order)
    expect(warnings).toEqual([
      { field: 'customer.since', message: 'The "date" schema cannot be converted to JSON Schema.' },
      { field: 'lines[].sku', message: 'The "check" action cannot be converted to JSON Schema.' },
    ])
    expect(schema).toMatchObject({
      properties: {
        customer: { properties: { email: { type: 'string', format: 'email' } }, required: ['email', 'since'] },
        lines: { type: 'array', items: { properties: { quantity: { type: 'integer', minimum: 1 } } } },
        note: { type: 'string' },
      },
      required: ['customer', 'lines'],
    })
  })

  it('output direction: what a handler answers (a response schema)', () => {
    expect(toJsonSchema(Post, { direction: 'output' }).schema).toMatchObject({ type: 'object', properties: { id: { type: 'number' }, published_at: { nullable: true } } })
  })

  describe('utcTimestamp() keeps format: date-time wherever it is, reading a request or a response, with no warning', () => {
    const timestamp = { type: 'string', format: 'date-time', 'x-rules': ['timestamp'] }
    const nullable = { ...timestamp, nullable: true }
    it.each<[string, StandardSchemaV1, Record<string, unknown>]>([
      ['alone', utcTimestamp(), timestamp],
      // make:crud: a required date field, and an optional one (absent is null).
      ['make:crud optional: v.optional(v.nullable(...), null)', v.optional(v.nullable(utcTimestamp()), null), { ...nullable, default: null }],
      ['v.optional', v.optional(utcTimestamp()), timestamp],
      ['v.nullable', v.nullable(utcTimestamp()), nullable],
      ['v.nullish', v.nullish(utcTimestamp()), nullable],
      ['v.exactOptional', v.exactOptional(utcTimestamp()), timestamp],
      ['v.undefinedable', v.undefinedable(utcTimestamp()), timestamp],
      ['first in a pipe, with its description and example after it', v.pipe(utcTimestamp(), v.description('When it starts'), v.metadata({ example: '2026-01-01T00:00:00.000Z' })), { ...timestamp, description: 'When it starts', example: '2026-01-01T00:00:00.000Z' }],
      ['first in a pipe, with more rules after it', v.pipe(utcTimestamp(), v.string(), v.maxLength(30)), { ...timestamp, maxLength: 30 }],
      ['later in a pipe: v.pipe(v.string(), v.trim(), utcTimestamp())', v.pipe(v.string(), v.trim(), utcTimestamp()), timestamp],
      ['in a pipe in v.optional', v.optional(v.pipe(v.string(), utcTimestamp())), timestamp],
      ['in an object in a list', v.array(v.object({ at: v.nullable(utcTimestamp()) })), { type: 'array', items: { type: 'object', properties: { at: nullable }, required: ['at'] } }],
      ['in a record', v.record(v.string(), utcTimestamp()), { type: 'object', additionalProperties: timestamp }],
      ['in a union', v.union([utcTimestamp(), v.literal('now')]), { anyOf: [timestamp, { enum: ['now'] }] }],
    ])('%s', (_name, schema, expected) => {
      for (const direction of ['input', 'output'] as const) expect(toJsonSchema(schema, { direction }), direction).toEqual({ schema: expected, warnings: [] })
    })

    it('a named one is one component wherever it is nested', () => {
      const StartsAt = utcTimestamp()
      const Event = v.object({ starts_at: v.pipe(v.string(), v.trim(), StartsAt), ends_at: v.optional(v.nullable(StartsAt)) })
      expect(toJsonSchema(Event, { direction: 'input', definitions: { StartsAt } })).toEqual({
        schema: {
          type: 'object',
          properties: { starts_at: timestamp, ends_at: { allOf: [{ $ref: '#/$defs/StartsAt' }], nullable: true } },
          required: ['starts_at'],
          $defs: { StartsAt: timestamp },
        },
        warnings: [],
      })
    })
  })

  it('other targets: draft-2020-12 writes null as a type', () => {
    const schema = toJsonSchema(v.object({ a: v.nullable(v.string()) }), { direction: 'input', target: 'draft-2020-12' }).schema
    expect(schema).toMatchObject({ properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['a'] })
  })
})

describe('other libraries', () => {
  const standard = (props: Record<string, unknown>): StandardSchemaV1 =>
    ({ '~standard': { version: 1, vendor: 'acme', validate: (value: unknown) => ({ value }), ...props } }) as StandardSchemaV1

  it('a Standard Schema carrying its own JSON Schema (Standard JSON Schema) converts itself, with the target asked for', () => {
    const asked: unknown[] = []
    const schema = standard({
      jsonSchema: {
        input: (options: { target: string }) => (asked.push(['input', options.target]), { type: 'object', properties: { q: { type: 'string' } }, required: [] }),
        output: (options: { target: string }) => (asked.push(['output', options.target]), { type: 'string' }),
      },
    })
    expect(input(schema)).toEqual({ schema: { type: 'object', properties: { q: { type: 'string' } } }, warnings: [] })
    expect(toJsonSchema(schema, { direction: 'output', target: 'draft-07' }).schema).toEqual({ type: 'string' })
    expect(asked).toEqual([['input', 'openapi-3.0'], ['output', 'draft-07']])
  })

  it('a library that cannot convert, or has no JSON Schema: null and a warning saying so', () => {
    const refusing = standard({ jsonSchema: { input: () => { throw new Error('openapi-3.0 is not supported') }, output: () => ({}) } })
    expect(input(refusing)).toEqual({ schema: null, warnings: [{ field: '', message: 'acme cannot convert this schema to openapi-3.0: openapi-3.0 is not supported' }] })
    expect(input(standard({}))).toEqual({ schema: null, warnings: [{ field: '', message: expect.stringContaining('this acme schema carries no JSON Schema') }] })
  })
})
