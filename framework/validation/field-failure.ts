/**
 * A field's failure found after its schema passed (an address already taken, a link's token spent), worded by
 * the request's message function like the schema's own: translated as `validation.<rule>`.
 */
import { validationMessageOf, type Context } from '../context/context.ts'
import { ValidationError } from '../http/http-error.ts'
import type { ValidationIssue } from './issues.ts'
import { defaultValidationMessage } from './messages.ts'

/**
 * The 422 for `field` failing `rule`, in the request's language.
 * @example if (await emailExists(db, input.email)) throw fieldFailure(c, 'email', 'unique')
 */
export function fieldFailure(c: Context, field: string, rule: string): ValidationError {
  const path = field.split('.')
  const issue: ValidationIssue = {
    field,
    path,
    label: path.at(-1)!.replaceAll('_', ' '),
    rule,
    requirement: undefined,
    input: undefined,
    source: 'body',
    message: '',
    custom: false,
    issue: { message: '', path },
  }
  const english = defaultValidationMessage(issue)
  const worded = { ...issue, message: english, issue: { message: english, path } }
  return new ValidationError({ [field]: [(validationMessageOf(c) ?? defaultValidationMessage)(worded)] })
}
