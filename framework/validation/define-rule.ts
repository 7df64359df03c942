/**
 * An app's own validation rule (`svc make:rule`), used inside a schema like
 * valibot's built-in actions. Its failures are worded like svc's own: the
 * rule's message by default ("The handle field must be a slug."), or the
 * app's translation of `validation.<name>` (see docs/translations.md).
 *
 * @example
 * export const slug = defineRule({
 *   name: 'slug',
 *   message: 'The {field} field may only hold lower-case letters, digits and dashes.',
 *   check: (value: string) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(value),
 * })
 * const Input = v.object({ handle: v.pipe(v.string(), slug()) })
 *
 * // with a parameter: `{requirement}` in the message
 * export const maxWords = defineRule({
 *   name: 'max_words',
 *   message: 'The {field} field must not have more than {requirement} words.',
 *   check: (value: string, max: number) => value.split(/\s+/).filter(Boolean).length <= max,
 * })
 * v.pipe(v.string(), maxWords(100))
 */
import * as v from 'valibot'
import { namedCheck } from './issues.ts'

export interface RuleDefinition<T, P extends unknown[]> {
  /** The rule's name in messages and translations (`validation.<name>`): lower case, `_` between words. */
  name: string
  /** The English message: `{field}` is the field's name, `{requirement}` the rule's parameter. */
  message: string
  /** True when the value passes. */
  check(value: T, ...params: P): boolean
}

const MESSAGES = Symbol.for('svc.rule-messages')

/** The messages of the rules defined in this process, by name (one registry for every copy of svc loaded). */
function messages(): Map<string, string> {
  const global = globalThis as { [MESSAGES]?: Map<string, string> }
  return (global[MESSAGES] ??= new Map())
}

/** The message a rule was defined with, if `rule` names one made by `defineRule`. */
export function ruleMessage(rule: string): string | undefined {
  return messages().get(rule)
}

export function defineRule<T, P extends unknown[] = []>(definition: RuleDefinition<T, P>): (...params: P) => v.CheckAction<T, undefined> {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) {
    throw new Error(`Rule name "${definition.name}": use lower-case letters, digits and _ (it is a translation key)`)
  }
  messages().set(definition.name, definition.message)
  return (...params) => {
    const requirement = params.length === 0 ? undefined : params.length === 1 ? params[0] : params
    return v.check(namedCheck(definition.name, (value: T) => definition.check(value, ...params), requirement))
  }
}
