/**
 * Standard Schema validation turned into svc's 422 envelope: one message per
 * field (the first rule it fails, in the order the schema lists them),
 * worded by the app's message function.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { ValidationError, type FieldErrors } from '../http/http-error.ts'
import { toValidationIssue, type InputSource, type ValidationMessageFormatter } from './issues.ts'
import { defaultValidationMessage } from './messages.ts'
import { withOwnKeysOnly } from './inherited-keys.ts'
import { jsonObject } from './rules.ts'

export type ValidationResult<S extends StandardSchemaV1> =
  | { ok: true; value: StandardSchemaV1.InferOutput<S> }
  | { ok: false; errors: FieldErrors }

/** Validates without throwing: the output, or the field errors as the 422 would list them. */
export async function checkWith<S extends StandardSchemaV1>(
  schema: S,
  input: unknown,
  source: InputSource = 'body',
  format: ValidationMessageFormatter = defaultValidationMessage,
): Promise<ValidationResult<S>> {
  // valibot's `object` takes a list as an object whose keys are missing: the error would list every field.
  const checked: StandardSchemaV1 = Array.isArray(input) && isObjectSchema(schema) ? LIST_REFUSED : schema
  const result = await checked['~standard'].validate(withOwnKeysOnly(checked, input))
  if (result.issues === undefined) return { ok: true, value: result.value }
  return { ok: false, errors: toFieldErrors(result.issues, source, format, checked) }
}

const LIST_REFUSED = jsonObject({})
const OBJECT_SCHEMAS = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest'])

function isObjectSchema(schema: StandardSchemaV1): boolean {
  const { kind, type } = schema as { kind?: unknown; type?: unknown }
  return kind === 'schema' && typeof type === 'string' && OBJECT_SCHEMAS.has(type)
}

/**
 * The output of `schema` for `input`, or a ValidationError (422).
 * @example const input = await validateWith(v.object({ title: v.string() }), json)
 */
export async function validateWith<S extends StandardSchemaV1>(
  schema: S,
  input: unknown,
  source: InputSource = 'body',
  format: ValidationMessageFormatter = defaultValidationMessage,
): Promise<StandardSchemaV1.InferOutput<S>> {
  const result = await checkWith(schema, input, source, format)
  if (result.ok) return result.value
  throw new ValidationError(result.errors)
}

export function toFieldErrors(
  issues: readonly StandardSchemaV1.Issue[],
  source: InputSource = 'body',
  format: ValidationMessageFormatter = defaultValidationMessage,
  schema?: StandardSchemaV1,
): FieldErrors {
  // A Map, then own properties: a field named `constructor`, `toString` or `__proto__` is a field like any
  // other (looked up on a plain object it was already "set", and its error was dropped; assigned, `__proto__`
  // set the prototype). With every error dropped, the input passed as valid.
  const errors = new Map<string, string[]>()
  for (const raw of issues) {
    const issue = toValidationIssue(raw, source, schema)
    if (!errors.has(issue.field)) errors.set(issue.field, [format(issue)])
  }
  return Object.fromEntries(errors)
}
