/**
 * A field's failure found after its schema passed (an address already taken, a link's token spent), worded by
 * the request's message function like the schema's own: translated as `validation.<rule>`.
 */
import { validationMessageOf, type Context } from '../context/context.ts'
import { VALIDATION_FAILED_MESSAGE, ValidationError } from '../http/http-error.ts'
import type { ValidationIssue } from './issues.ts'
import { defaultValidationMessage } from './messages.ts'

/**
 * The 422 for `field` failing `rule`, in the request's language.
 * @example if (await emailExists(db, input.email)) throw fieldFailure(c, 'email', 'unique')
 */
export function fieldFailure(c: Context, field: string, rule: string): ValidationError {
  return new ValidationError({ [field]: [(validationMessageOf(c) ?? defaultValidationMessage)(failureIssue(field, rule))] })
}

/**
 * A ValidationError as the request reads it: svc's summary ("The given data was invalid.", key
 * `validation.invalid_data`) and the failures worded where no request was at hand (a model's unique index), in
 * the request's language through the app's message function. A summary or message the thrower wrote is kept.
 */
export function wordedForRequest(c: Context, error: ValidationError): ValidationError {
  const format = validationMessageOf(c)
  const summary = error.message === VALIDATION_FAILED_MESSAGE
  // Without a message function, svc's English is what the error already says.
  if (format === undefined || (!summary && error.failures.length === 0)) return error
  const errors = { ...error.errors }
  for (const { field, rule, label } of error.failures) errors[field] = [format(failureIssue(field, rule, label))]
  const message = summary ? format(failureIssue('', SUMMARY_RULE, '')) : error.message
  return new ValidationError(errors, message, { cause: error.cause })
}

/** The rule (and lang key) of the 422's `error` as a whole. */
const SUMMARY_RULE = 'invalid_data'

/** A failure found outside a schema, with svc's English as its library message (what a hand-written formatter may fall back to). */
function failureIssue(field: string, rule: string, label = field.split('.').at(-1)!.replaceAll('_', ' ')): ValidationIssue {
  const path = field === '' ? [] : field.split('.')
  const issue: ValidationIssue = {
    field,
    path,
    label,
    rule,
    requirement: undefined,
    input: undefined,
    source: 'body',
    message: '',
    custom: false,
    issue: { message: '', path },
  }
  const english = defaultValidationMessage(issue)
  return { ...issue, message: english, issue: { message: english, path } }
}
