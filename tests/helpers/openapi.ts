/**
 * Checking API descriptions in tests: both validators the issue names
 * (@readme/openapi-parser, @apidevtools/swagger-parser), and Ajv over the
 * document's own schemas (OpenAPI 3.0's `nullable` read as JSON Schema's
 * null type), for the response contract tests.
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import { validate as readmeValidate } from '@readme/openapi-parser'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { JsonObject } from '../../cli/openapi/document.ts'

type JsonSchema = { [keyword: string]: unknown }

/** Both parsers' verdicts; `errors` is empty when both accept the document. */
export async function validateWithParsers(document: JsonObject): Promise<string[]> {
  const errors: string[] = []
  const readme = await readmeValidate(structuredClone(document) as never)
  if (!readme.valid) errors.push(`@readme/openapi-parser: ${JSON.stringify(readme.errors)}`)
  if (readme.warnings.length > 0) errors.push(`@readme/openapi-parser warnings: ${JSON.stringify(readme.warnings)}`)
  try {
    await SwaggerParser.validate(structuredClone(document) as never)
  } catch (error) {
    errors.push(`@apidevtools/swagger-parser: ${(error as Error).message}`)
  }
  return errors
}

/** OpenAPI 3.0 schema → JSON Schema for Ajv: `nullable: true` admits null (with or without `type`). */
export function toAjvSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toAjvSchema)
  if (typeof schema !== 'object' || schema === null) return schema
  const { nullable, ...rest } = schema as JsonSchema
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, key === 'enum' || key === 'example' || key === 'default' ? value : toAjvSchema(value)]))
  if (nullable !== true) return converted
  if (typeof converted.type === 'string' && converted.enum === undefined) return { ...converted, type: [converted.type, 'null'] }
  return { anyOf: [converted, { type: 'null' }] }
}

/** Validates values against schemas of `document` (its `#/components/...` references resolve). */
export function documentValidator(document: JsonObject): (schema: unknown, value: unknown) => ErrorObject[] {
  const ajv = new Ajv({ strict: false, allErrors: true })
  ;(addFormatsModule as unknown as (ajv: Ajv) => Ajv)(ajv)
  const components = toAjvSchema(document.components)
  const cache = new Map<string, ValidateFunction>()
  return (schema, value) => {
    const key = JSON.stringify(schema)
    let validate = cache.get(key)
    if (validate === undefined) {
      validate = ajv.compile({ ...(toAjvSchema(schema) as JsonSchema), components })
      cache.set(key, validate)
    }
    return validate(value) ? [] : [...(validate.errors ?? [])]
  }
}

/** Every object in `value` (depth first), with its JSON pointer. */
export function* walkObjects(value: unknown, pointer = ''): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* walkObjects(item, `${pointer}/${index}`)
    return
  }
  if (typeof value !== 'object' || value === null) return
  yield [pointer, value as Record<string, unknown>]
  for (const [key, item] of Object.entries(value)) yield* walkObjects(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)
}
