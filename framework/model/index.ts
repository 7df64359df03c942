/**
 * Models: a typed table (`defineModel`), its sample rows (`defineFactory`).
 * See docs/models.md.
 */
export {
  defineModel,
  type ColumnOf,
  type ListOptions,
  type Model,
  type ModelDefinition,
  type ModelObserver,
  type Page,
  type PageMeta,
  type PageOptions,
  type SortKey,
} from './define-model.ts'
export { defineFactory, type Factory, type FactoryAttributes, type ParentFactory } from './factory.ts'
export type { Cast } from './casts.ts'
