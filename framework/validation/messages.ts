/**
 * svc's one message style for validation errors, for its own routes and the
 * app's alike: "The email field must be a valid email address." A message the
 * schema's author wrote is kept as written. An app words them its own way (or
 * translates them) with `createApp({ validationMessage })`; see docs/validation.md.
 */
import { ruleMessage } from './define-rule.ts'
import type { ValidationIssue } from './issues.ts'

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  tuple: 'a list',
  bigint: 'an integer',
  date: 'a date',
}

/** The default `ValidationMessageFormatter`. */
export function defaultValidationMessage(issue: ValidationIssue): string {
  if (issue.custom) return issue.message
  const { label, requirement } = issue
  const field = `The ${label} field`
  if (issue.path.length === 0 && (issue.rule === 'type' || issue.rule === 'required')) {
    return issue.source === 'body' ? 'The request body must be a JSON object.' : 'The query string is invalid.'
  }
  const list = Array.isArray(issue.input)
  switch (issue.rule) {
    case 'required':
      return `${field} is required.`
    case 'type':
      // A query name given twice arrives as a list: "must be a string" would not tell the client what it did.
      if (issue.source === 'query' && list && requirement !== 'array' && requirement !== 'tuple') return `${field} must be given only once.`
      return `${field} must be ${TYPE_NAMES[String(requirement)] ?? `of type ${String(requirement)}`}.`
    case 'min_length':
      return list ? `${field} must have at least ${count(requirement, 'item')}.` : `${field} must be at least ${count(requirement, 'character')}.`
    case 'max_length':
      return list ? `${field} must not have more than ${count(requirement, 'item')}.` : `${field} must not be greater than ${count(requirement, 'character')}.`
    case 'length':
      return list ? `${field} must have ${count(requirement, 'item')}.` : `${field} must be ${count(requirement, 'character')}.`
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
      return `${field} must be a valid ISO 8601 ${requirement === 'iso_date' ? 'date' : 'timestamp'}.`
    case 'confirmed':
      return `The ${label} does not match.`
    case 'visible':
      return `${field} must not contain control or invisible characters.`
    case 'without_nul':
      return `${field} must not contain a NUL character.`
    case 'not_allowed':
      return `${field} is not allowed.`
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
