/**
 * Translations: the app's messages per locale (`lang/<locale>/<file>.ts`,
 * `svc make:lang`), looked up by `file.key` with `{name}` placeholders, in
 * the language the request asks for (`Accept-Language`), else the fallback
 * locale's. Validation errors go through the same messages
 * (`validation.<rule>`) when the app sets `validationMessage:
 * lang.validationMessage`. See docs/translations.md.
 *
 * @example
 * export const lang = createTranslator({ fallback: 'en', locales: { en: { messages: { welcome: 'Welcome, {name}!' } }, fr: { ... } } })
 * const t = lang.for(c)        // in a handler: the request's language
 * t('messages.welcome', { name: user.name })
 */
import { defaultValidationMessage, fillPlaceholders, messageKeys } from '../validation/messages.ts'
import type { ValidationIssue, ValidationMessageFormatter } from '../validation/issues.ts'
import { negotiateLocale } from './negotiate.ts'

/** A lang file: keys to messages, nested at will (`'auth.failed'` reads `{ auth: { failed } }`). */
export interface Messages {
  readonly [key: string]: string | Messages
}

export type TranslationParams = Readonly<Record<string, string | number>>

/** `t(key, params)`: the message for `key`, in one locale. */
export type Translate = (key: string, params?: TranslationParams) => string

export interface TranslatorOptions {
  /** Locale => file name => messages: `{ en: { validation, messages }, fr: { validation } }`. */
  locales: Readonly<Record<string, Readonly<Record<string, Messages>>>>
  /** The locale used when the request asks for none the app has, and for keys a locale lacks. */
  fallback: string
}

export interface Translator {
  readonly locales: readonly string[]
  readonly fallback: string
  /** The locale to answer a request in (its `Accept-Language`), or the fallback. */
  localeOf(source: Request | { request: Request }): string
  /** The message for `key` in `locale` (else in the fallback locale; else the key itself). */
  translate(locale: string, key: string, params?: TranslationParams): string
  /** Whether `locale` (or the fallback locale) has a message for `key`. */
  has(locale: string, key: string): boolean
  /** `t(key, params)` in the request's language. */
  for(source: Request | { request: Request }): Translate
  /**
   * Words validation errors with the `validation.<rule>` messages in the
   * request's language (`{field}`, `{requirement}`; the field's own name from
   * `validation.attributes.<field>` when there is one), and svc's default
   * wording for a rule no lang file has. A message written in the schema is kept.
   */
  readonly validationMessage: ValidationMessageFormatter
}

export function createTranslator(options: TranslatorOptions): Translator {
  const { fallback } = options
  // The fallback is a locale to answer in even without files of its own (svc's wording, the keys).
  const locales = [...new Set([...Object.keys(options.locales), fallback])]
  const chosen = new WeakMap<Request, string>()

  const lookup = (locale: string, key: string): string | undefined => {
    const [file, ...path] = key.split('.')
    let node: string | Messages | undefined = options.locales[locale]?.[file!]
    for (const part of path) node = typeof node === 'object' ? node[part] : undefined
    return typeof node === 'string' ? node : undefined
  }
  const find = (locale: string, key: string): string | undefined => lookup(locale, key) ?? (locale === fallback ? undefined : lookup(fallback, key))

  const firstOf = (locale: string, keys: readonly string[]): string | undefined => {
    for (const key of keys) {
      const message = lookup(locale, key)
      if (message !== undefined) return message
    }
    return undefined
  }

  // A nested field's name, as written in `errors` (`'customer.name': ...`), or nested in the file (`customer: { name } }`).
  const attributeOf = (locale: string, field: string): string | undefined => {
    const attributes = options.locales[locale]?.validation?.attributes
    const flat = typeof attributes === 'object' ? attributes[field] : undefined
    return typeof flat === 'string' ? flat : lookup(locale, `validation.attributes.${field}`)
  }

  const localeOf = (source: Request | { request: Request }): string => {
    const request = source instanceof Request ? source : source.request
    let locale = chosen.get(request)
    if (locale === undefined) chosen.set(request, (locale = negotiateLocale(request.headers.get('accept-language'), locales, fallback)))
    return locale
  }

  const translate = (locale: string, key: string, params: TranslationParams = {}): string => fillPlaceholders(find(locale, key) ?? key, params)

  const validationMessage: ValidationMessageFormatter = (issue: ValidationIssue, request?: Request) => {
    // A message written in the schema is the author's.
    if (issue.custom) return defaultValidationMessage(issue)
    const locale = request === undefined ? fallback : localeOf(request)
    // The most specific key the locale words (`min_length_list` for a list, never `min_length`'s "characters"),
    // then the same in the fallback locale's file: its language before a looser wording in another.
    const keys = messageKeys(issue).map((key) => `validation.${key}`)
    const message = firstOf(locale, keys) ?? (locale === fallback ? undefined : firstOf(fallback, keys))
    if (message === undefined) return defaultValidationMessage(issue)
    const field = attributeOf(locale, issue.field) ?? (locale === fallback ? undefined : attributeOf(fallback, issue.field)) ?? issue.label
    return fillPlaceholders(message, { field, requirement: issue.requirement })
  }

  return {
    locales,
    fallback,
    localeOf,
    translate,
    has: (locale, key) => find(locale, key) !== undefined,
    for: (source) => {
      const locale = localeOf(source)
      return (key, params) => translate(locale, key, params)
    },
    validationMessage,
  }
}
