import { appPaths } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export type RuleOptions = Record<string, never>

declare module '../template.ts' {
  interface TemplateOptions {
    rule: RuleOptions
  }
}

/** `app/rules/<name>.ts`: a validation rule used inside a schema (`v.pipe(v.string(), slug())`). */
export default defineTemplate('rule', ({ names }) => ({
  path: appPaths.rule(names),
  contents: `/**
 * The ${names.base.snake} rule, inside a schema: \`v.pipe(v.string(), ${names.base.camel}())\`.
 * A failure answers 422 with its message (translated as \`validation.${names.base.snake}\`
 * when the app has lang files: docs/translations.md).
 */
import { defineRule } from 'svc'

export const ${names.base.camel} = defineRule({
  name: '${names.base.snake}',
  message: 'The {field} field must be ${names.base.words}.',
  // The test: true when the value passes. This one (to replace) accepts text without leading or trailing spaces.
  check: (value: string) => value === value.trim(),
})
`,
}))
