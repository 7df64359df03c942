/**
 * Standard Schema validation turned into svc's 422 envelope: one message per
 * field (the first rule it fails, in the order the schema lists them),
 * worded by the app's message function.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { ValidationError, type FieldErrors } from '../http/http-error.ts'
import { toValidationIssue, type InputSource, type ValidationMessageFormatter } from './issues.ts'
import { defaultValidationMessage } from './messages.ts'

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
  const result = await schema['~standard'].validate(input)
  if (result.issues === undefined) return { ok: true, value: result.value }
  return { ok: false, errors: toFieldErrors(result.issues, source, format) }
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
): FieldErrors {
  const errors: FieldErrors = {}
  for (const raw of issues) {
    const issue = toValidationIssue(raw, source)
    if (errors[issue.field] === undefined) errors[issue.field] = [format(issue)]
  }
  return errors
}
