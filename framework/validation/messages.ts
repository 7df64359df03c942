/**
 * svc's one message style for validation errors, for its own routes and the
 * app's alike: "The email field must be a valid email address." A message the
 * schema's author wrote is kept as written. An app words them its own way (or
 * translates them) with `createApp({ validationMessage })`; see docs/validation.md.
 */
import { ruleMessage } from './define-rule.ts'
import type { ValidationIssue } from './issues.ts'

/** `type_<key>` in a lang file, by the type a field asks for. */
const TYPE_KEYS: Record<string, string> = {
  string: 'string',
  number: 'number',
  integer: 'integer',
  boolean: 'boolean',
  object: 'object',
  array: 'list',
  tuple: 'list',
  bigint: 'integer',
  date: 'date',
}

/**
 * The keys of a lang file's `validation` messages that word `issue`, the most specific first: one key per
 * wording svc's English has (`min_length_list` for a list, `type_integer`, `given_once` for a query name
 * given twice, `body` for a body that is not a JSON object), then the rule's own key when its wording fits
 * too (`type`, with `{requirement}`). A key such as `min_length` is never used for a list: "at least 2
 * characters" would be wrong where svc's English says "items".
 */
export function messageKeys(issue: ValidationIssue): readonly string[] {
  const { rule, requirement } = issue
  if (issue.path.length === 0 && (rule === 'type' || rule === 'required')) return [issue.source]
  const list = Array.isArray(issue.input)
  switch (rule) {
    case 'type': {
      // A query name given twice arrives as a list: "must be a string" would not tell the client what it did.
      if (issue.source === 'query' && list && requirement !== 'array' && requirement !== 'tuple') return ['given_once']
      const type = TYPE_KEYS[String(requirement)]
      return type === undefined ? ['type'] : [`type_${type}`, 'type']
    }
    case 'min_length':
    case 'max_length':
    case 'length':
      return list ? [`${rule}_list`] : [rule]
    case 'timestamp':
      return requirement === 'iso_date' ? ['timestamp_date'] : ['timestamp']
    default:
      return [rule]
  }
}

/** The default `ValidationMessageFormatter`. */
export function defaultValidationMessage(issue: ValidationIssue): string {
  if (issue.custom) return issue.message
  const { label, requirement } = issue
  const field = `The ${label} field`
  const key = messageKeys(issue)[0]!
  switch (key) {
    case 'body':
      return 'The request body must be a JSON object.'
    case 'query':
      return 'The query string is invalid.'
    case 'given_once':
      return `${field} must be given only once.`
    case 'required':
      return `${field} is required.`
    case 'type':
      return `${field} must be of type ${String(requirement)}.`
    case 'type_string':
      return `${field} must be a string.`
    case 'type_number':
      return `${field} must be a number.`
    case 'type_integer':
      return `${field} must be an integer.`
    case 'type_boolean':
      return `${field} must be true or false.`
    case 'type_object':
      return `${field} must be an object.`
    case 'type_list':
      return `${field} must be a list.`
    case 'type_date':
      return `${field} must be a date.`
    case 'min_length':
      return `${field} must be at least ${count(requirement, 'character')}.`
    case 'min_length_list':
      return `${field} must have at least ${count(requirement, 'item')}.`
    case 'max_length':
      return `${field} must not be greater than ${count(requirement, 'character')}.`
    case 'max_length_list':
      return `${field} must not have more than ${count(requirement, 'item')}.`
    case 'length':
      return `${field} must be ${count(requirement, 'character')}.`
    case 'length_list':
      return `${field} must have ${count(requirement, 'item')}.`
    case 'email':
      return `${field} must be a valid email address.`
    case 'url':
      return `${field} must be a valid URL.`
    case 'uuid':
      return `${field} must be a valid UUID.`
    case 'regex':
      return `${field} format is invalid.`
    case 'digits':
      return `${field} must contain only digits.`
    case 'min_value':
      return `${field} must be at least ${String(requirement)}.`
    case 'max_value':
      return `${field} must not be greater than ${String(requirement)}.`
    case 'one_of':
      return `The selected ${label} is invalid.`
    case 'timestamp':
      return `${field} must be a valid ISO 8601 timestamp.`
    case 'timestamp_date':
      return `${field} must be a valid ISO 8601 date.`
    case 'confirmed':
      return `The ${label} does not match.`
    case 'visible':
      return `${field} must not contain control or invisible characters.`
    case 'without_nul':
      return `${field} must not contain a NUL character.`
    case 'not_allowed':
      return `${field} is not allowed.`
    // The 422's `error` as a whole (wordedForRequest).
    case 'invalid_data':
      return 'The given data was invalid.'
    // Found after the schema passed (fieldFailure): svc's auth routes.
    case 'unique':
      return `The ${label} has already been taken.`
    case 'verification_token':
      return 'This verification token is invalid or has expired.'
    case 'reset_token':
      return 'This password reset token is invalid or has expired.'
    default: {
      // An app's rule (defineRule) has its own message; valibot's wording for any other would read "Invalid hexadecimal: Received ...".
      const own = ruleMessage(issue.rule)
      return own === undefined ? `${field} is invalid.` : fillPlaceholders(own, { field: label, requirement: issue.requirement })
    }
  }
}

function count(value: unknown, noun: string): string {
  return `${String(value)} ${noun}${value === 1 ? '' : 's'}`
}

/** `{name}` in `text` replaced by `params.name` (a list joined with ", "); unknown names stay as written. */
export function fillPlaceholders(text: string, params: Readonly<Record<string, unknown>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name]
    if (value === undefined) return whole
    return Array.isArray(value) ? value.join(', ') : String(value)
  })
}
