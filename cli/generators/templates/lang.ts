import { appPaths } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export interface LangOptions {
  locale: string
  file: string
}

declare module '../template.ts' {
  interface TemplateOptions {
    lang: LangOptions
  }
}

/**
 * What a new \`validation\` file holds: svc's messages by rule, with \`{field}\`
 * and \`{requirement}\`, in English, to translate.
 */
const VALIDATION = `  required: 'The {field} field is required.',
  type_string: 'The {field} field must be a string.',
  type_number: 'The {field} field must be a number.',
  type_integer: 'The {field} field must be an integer.',
  type_boolean: 'The {field} field must be true or false.',
  type_object: 'The {field} field must be an object.',
  type_list: 'The {field} field must be a list.',
  type_date: 'The {field} field must be a date.',
  /** Another type (\`{requirement}\` is its valibot name); also what the \`type_*\` keys fall back to. */
  type: 'The {field} field must be of type {requirement}.',
  /** A query name sent twice (\`?page=1&page=2\`) where the schema takes one value. */
  given_once: 'The {field} field must be given only once.',
  min_length: 'The {field} field must be at least {requirement} characters.',
  max_length: 'The {field} field must not be greater than {requirement} characters.',
  length: 'The {field} field must be {requirement} characters.',
  min_length_list: 'The {field} field must have at least {requirement} items.',
  max_length_list: 'The {field} field must not have more than {requirement} items.',
  length_list: 'The {field} field must have {requirement} items.',
  email: 'The {field} field must be a valid email address.',
  url: 'The {field} field must be a valid URL.',
  uuid: 'The {field} field must be a valid UUID.',
  regex: 'The {field} field format is invalid.',
  digits: 'The {field} field must contain only digits.',
  min_value: 'The {field} field must be at least {requirement}.',
  max_value: 'The {field} field must not be greater than {requirement}.',
  one_of: 'The selected {field} is invalid.',
  timestamp: 'The {field} field must be a valid ISO 8601 timestamp.',
  timestamp_date: 'The {field} field must be a valid ISO 8601 date.',
  confirmed: 'The {field} does not match.',
  visible: 'The {field} field must not contain control or invisible characters.',
  without_nul: 'The {field} field must not contain a NUL character.',
  not_allowed: 'The {field} field is not allowed.',
  invalid: 'The {field} field is invalid.',
  /** The 422's \`error\` as a whole, above the messages by field. */
  invalid_data: 'The given data was invalid.',
  /** Found after the schema passed: an address already registered (also a model's unique index), a link's token spent or expired. */
  unique: 'The {field} has already been taken.',
  verification_token: 'This verification token is invalid or has expired.',
  reset_token: 'This password reset token is invalid or has expired.',
  /** The body as a whole, when it is not a JSON object (\`null\`, a list, a string). */
  body: 'The request body must be a JSON object.',
  /** The query string as a whole, when the schema refuses it. */
  query: 'The query string is invalid.',
  /** Field names as people read them: \`errors.email\` says "The e-mail address field...". */
  attributes: {
    // password_confirmation: 'password confirmation',
  },`

/** `lang/<locale>/<file>.ts`: messages for `t('<file>.<key>', params)` in that locale. */
export default defineTemplate('lang', ({ options }) => ({
  path: appPaths.lang(options.locale, options.file),
  contents: `/** ${options.file} messages in ${options.locale}: \`t('${options.file}.<key>', { name })\` (docs/translations.md). */
import type { Messages } from 'svc'

export default {
${options.file === 'validation' ? VALIDATION : "  welcome: 'Welcome, {name}!',"}
} satisfies Messages
`,
}))
