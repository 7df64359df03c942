/** Translations: `createTranslator`, `t(key, params)` per request, validation messages. See docs/translations.md. */
export {
  createTranslator,
  type Messages,
  type Translate,
  type TranslationParams,
  type Translator,
  type TranslatorOptions,
} from './translator.ts'
export { negotiateLocale } from './negotiate.ts'
