/** Standard Schema validation turned into svc's 422 envelope. */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { ValidationError, type FieldErrors } from '../http/http-error.ts'

export async function validateWith<S extends StandardSchemaV1>(
  schema: S,
  input: unknown,
): Promise<StandardSchemaV1.InferOutput<S>> {
  const result = await schema['~standard'].validate(input)
  if (result.issues === undefined) return result.value
  throw new ValidationError(toFieldErrors(result.issues))
}

export function toFieldErrors(issues: readonly StandardSchemaV1.Issue[]): FieldErrors {
  const errors: FieldErrors = {}
  for (const issue of issues) {
    const field = issue.path?.map((key) => String(typeof key === 'object' ? key.key : key)).join('.') || '_'
    ;(errors[field] ??= []).push(issue.message)
  }
  return errors
}
