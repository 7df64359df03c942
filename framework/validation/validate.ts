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
import { listsForObjects } from './field-schema.ts'

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
  // valibot's `object` takes a list as an object whose keys are missing: every field would be "required",
  // and an object whose fields are all optional would pass as `{}`. The list is refused where it stands.
  const lists = listsForObjects(schema, input)
  const result = await schema['~standard'].validate(withOwnKeysOnly(schema, input))
  if (result.issues === undefined && lists.length === 0) return { ok: true, value: result.value }
  const issues = lists.length === 0 ? (result.issues ?? []) : withListsRefused(result.issues ?? [], lists, input)
  return { ok: false, errors: toFieldErrors(issues, source, format, schema) }
}

/** `issues` with every one inside a refused list replaced by one `type` issue on the list ("must be an object"). */
function withListsRefused(issues: readonly StandardSchemaV1.Issue[], lists: readonly string[][], input: unknown): StandardSchemaV1.Issue[] {
  // By path, joined: a hostile body may hold thousands of such lists, each with an issue per field.
  const pending = new Map(lists.map((path) => [path.join('\0'), path]))
  const refused = new Set(pending.keys())
  const out: StandardSchemaV1.Issue[] = []
  for (const issue of issues) {
    const keys = issue.path?.map((key) => String(typeof key === 'object' ? key.key : key)) ?? []
    let inside: string | undefined
    for (let depth = 0; depth <= keys.length && inside === undefined; depth++) {
      const prefix = keys.slice(0, depth).join('\0')
      if (refused.has(prefix)) inside = prefix
    }
    if (inside === undefined) out.push(issue)
    else if (pending.has(inside)) {
      // In the place of the first issue inside it: the fields keep the order the schema lists them in.
      out.push(listRefusal(pending.get(inside)!, input))
      pending.delete(inside)
    }
  }
  return [...out, ...[...pending.values()].map((path) => listRefusal(path, input))]
}

/** The issue valibot's `object` gives a value that is not an object, for a list at `path`. */
function listRefusal(path: readonly string[], input: unknown): StandardSchemaV1.Issue {
  const list = path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], input)
  return {
    kind: 'schema',
    type: 'object',
    input: list,
    expected: 'Object',
    received: 'Array',
    message: 'Invalid type: Expected Object but received Array',
    path: [...path],
  } as StandardSchemaV1.Issue
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
