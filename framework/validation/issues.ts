/**
 * What a validation failure says, the same way for every schema library:
 * each Standard Schema issue becomes a `ValidationIssue` (field, rule,
 * requirement), and one message function turns it into the text of the 422.
 * Rules are read from valibot's issues (svc's own schemas are valibot);
 * other libraries' issues keep their own message (rule `invalid`).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { pipeHas, schemaAtPath } from './field-schema.ts'

/** Where the validated value came from: the JSON body or the query string. */
export type InputSource = 'body' | 'query'

export interface ValidationIssue {
  /** The field path as in the 422's `errors` (`email`, `author.email`); `body` or `query` for the input as a whole. */
  field: string
  /** The path's keys (`['author', 'email']`); empty for the input as a whole. */
  path: string[]
  /** The field's name for people: the last path key, `_` read as a space (`password confirmation`); a list item's is its list's and its position (`tags.0`). */
  label: string
  /**
   * What failed: `required`, `type`, `min_length`, `max_length`, `length`, `email`, `url`, `regex`,
   * `min_value`, `max_value`, `digits`, `one_of`, `confirmed`, `visible`, `without_nul`, `timestamp`, `not_allowed`, an app's own rule's
   * name (`defineRule`), or `invalid` (anything else).
   */
  rule: string
  /** The rule's argument: the limit (8), the expected type (`string`), the pattern... */
  requirement: unknown
  /** The value that failed (for `min_length` on a list, the list). */
  input: unknown
  source: InputSource
  /** The library's message: the schema author's own when they wrote one (`custom`), else its default. */
  message: string
  /** True when the schema's author wrote the message: the default formatter keeps it as it is. */
  custom: boolean
  /** The issue as the library reported it. */
  issue: StandardSchemaV1.Issue
}

/**
 * Turns an issue into the message sent in `errors[field]`. Set one per app:
 * `createApp({ validationMessage })`. It is given the request being validated
 * (to answer in its language: `Accept-Language`), when there is one.
 */
export type ValidationMessageFormatter = (issue: ValidationIssue, request?: Request) => string

/** valibot's issue fields beside Standard Schema's `message` and `path`. */
interface ValibotIssue extends StandardSchemaV1.Issue {
  kind: 'schema' | 'validation' | 'transformation'
  type: string
  input: unknown
  expected: string | null
  received: string
  requirement?: unknown
}

const TYPES = new Set(['string', 'number', 'boolean', 'object', 'strict_object', 'loose_object', 'array', 'tuple', 'bigint', 'date', 'integer'])
const ONE_OF = new Set(['picklist', 'enum', 'literal', 'union', 'variant'])
const TIMESTAMPS = new Set(['iso_timestamp', 'iso_date_time', 'iso_date', 'iso_time'])
const SAME_NAME = new Set(['min_length', 'max_length', 'length', 'email', 'url', 'regex', 'min_value', 'max_value', 'uuid', 'digits'])

/**
 * The rule name of a check function (`confirmed`, an app's `defineRule`), so
 * that a valibot `check`/`partialCheck` can carry one. A registered symbol on
 * the function itself: the app's rules are made by the copy of svc the app
 * imports, and read by the copy that runs the request (the same one in
 * production; not under a test runner that loads both).
 */
const RULE_NAME = Symbol.for('svc.rule-name')

/**
 * Gives a check function a rule name, for the message function.
 * @example v.forward(v.partialCheck([['password'], ['password_confirmation']], namedCheck('confirmed', same)), ['password_confirmation'])
 */
export function namedCheck<F extends (...args: never[]) => unknown>(rule: string, check: F, requirement?: unknown): F {
  // Configurable: one check function may be named again (a shared rule used by several fields).
  Object.defineProperty(check, RULE_NAME, { value: { rule, requirement } satisfies NamedRule, configurable: true })
  return check
}

interface NamedRule {
  rule: string
  requirement: unknown
}

/** The rule name a check function was given with `namedCheck` (`confirmed`, `visible`, an app's `defineRule`), if any. */
export function namedCheckRule(check: unknown): string | undefined {
  return typeof check === 'function' ? (check as { [RULE_NAME]?: NamedRule })[RULE_NAME]?.rule : undefined
}

/** `schema`, when given, is the one that reported the issue: it words what the issue alone cannot (an integer field given a string). */
export function toValidationIssue(issue: StandardSchemaV1.Issue, source: InputSource, schema?: StandardSchemaV1): ValidationIssue {
  const path = issue.path?.map((key) => String(typeof key === 'object' ? key.key : key)) ?? []
  const field = path.length === 0 ? source : path.join('.')
  const label = labelOf(path, source)
  if (!isValibotIssue(issue)) {
    return { field, path, label, rule: 'invalid', requirement: undefined, input: undefined, source, message: issue.message, custom: true, issue }
  }
  // `null` is "required" where the field must be given; an optional field given `null` has the wrong type.
  const ruled = ruleOf(issue, !(issue.received === 'null' && schema !== undefined && mayBeLeftOut(schemaAtPath(schema, path))))
  const { rule } = ruled
  // An integer field given "a" fails `number` before its `integer` action runs: the field asks for an integer all the same.
  const asksInteger = rule === 'type' && ruled.requirement === 'number' && schema !== undefined && pipeHas(schemaAtPath(schema, path), 'integer')
  const requirement = asksInteger ? 'integer' : ruled.requirement
  return { field, path, label, rule, requirement, input: issue.input, source, message: issue.message, custom: !isDefaultMessage(issue), issue }
}

/**
 * The field for people: its last key, `_` read as a space; an item of a list keeps its list's name and its
 * position (`tags.0`, `lines.1`): "The 0 field must be a string." named nothing the client could find.
 */
function labelOf(path: readonly string[], source: InputSource): string {
  let named = path.length - 1
  while (named >= 0 && /^\d+$/.test(path[named]!)) named--
  const name = (named >= 0 ? path[named]! : source).replaceAll('_', ' ')
  return [name, ...path.slice(named + 1)].join('.')
}

/** valibot's wrappers that let a field be left out (and so not be "required"), without taking `null`. */
const MAY_BE_LEFT_OUT = new Set(['optional', 'exact_optional', 'undefinedable'])

function mayBeLeftOut(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && MAY_BE_LEFT_OUT.has(String((schema as { type?: unknown }).type))
}

function ruleOf(issue: ValibotIssue, nullIsMissing: boolean): { rule: string; requirement: unknown } {
  const named = typeof issue.requirement === 'function' ? (issue.requirement as { [RULE_NAME]?: NamedRule })[RULE_NAME] : undefined
  if (named !== undefined) return named
  // A key a strict object (or tuple) does not list, or a `v.never()` field: it read "must be an object".
  if (issue.kind === 'schema' && issue.expected === 'never') return { rule: 'not_allowed', requirement: undefined }
  if (issue.kind === 'schema' && (issue.received === 'undefined' || (issue.received === 'null' && nullIsMissing))) return { rule: 'required', requirement: undefined }
  if (issue.type === 'non_empty') return { rule: 'required', requirement: undefined }
  if (issue.kind === 'schema' && TYPES.has(issue.type)) return { rule: 'type', requirement: issue.type.replace(/^(strict|loose)_/, '') }
  if (issue.type === 'integer') return { rule: 'type', requirement: 'integer' }
  if (ONE_OF.has(issue.type)) return { rule: 'one_of', requirement: issue.expected }
  if (TIMESTAMPS.has(issue.type)) return { rule: 'timestamp', requirement: issue.type }
  if (SAME_NAME.has(issue.type)) return { rule: issue.type, requirement: issue.requirement }
  return { rule: 'invalid', requirement: issue.requirement }
}

function isValibotIssue(issue: StandardSchemaV1.Issue): issue is ValibotIssue {
  const candidate = issue as Partial<ValibotIssue>
  return typeof candidate.kind === 'string' && typeof candidate.type === 'string' && typeof candidate.received === 'string'
}

/** valibot's own wording (`Invalid length: Expected <=8 but received 9`), which svc rewords; a message its author wrote is kept. */
function isDefaultMessage(issue: ValibotIssue): boolean {
  const tail = `${issue.expected ? `Expected ${issue.expected} but r` : 'R'}eceived ${issue.received}`
  return issue.message.startsWith('Invalid ') && issue.message.endsWith(`: ${tail}`)
}
