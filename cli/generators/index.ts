/**
 * The generators module: typed templates (`templates/<kind>.ts`, overridden
 * by an app's `stubs/<kind>.ts`), what each `make:*` command plans
 * (generator.ts), the safe edits of the app's own files (codemods/), and the
 * writer that checks everything before writing anything. `svc/generators`
 * exports the types a stub is written with. See docs/generators.md.
 */
export { makeCrud, planCrud, resourceRoutes, type CrudOptions } from './crud.ts'
export { Generator } from './generator.ts'
export { writePlan, type EditOutcome, type Plan, type SourceEdit } from './write-plan.ts'
export { deriveNames, type Cases, type Names } from './names.ts'
export { parseFields, FIELD_TYPES, DEFAULT_CRUD_FIELDS, type Field, type FieldType } from './fields.ts'
export type { GeneratedFile, Stub, Template, TemplateContext, TemplateKind, TemplateOptions } from './template.ts'
export type { MakeJson, MakeEditJson, MakeSkippedJson } from '../contract/index.ts'

// The built-in kinds' options, for stubs' types (`Stub<'model'>`): the template files add them to TemplateOptions.
import type {} from './templates/controller.ts'
import type {} from './templates/event.ts'
import type {} from './templates/factory.ts'
import type {} from './templates/lang.ts'
import type {} from './templates/listener.ts'
import type {} from './templates/middleware.ts'
import type {} from './templates/migration.ts'
import type {} from './templates/model.ts'
import type {} from './templates/observer.ts'
import type {} from './templates/repository.ts'
import type {} from './templates/request.ts'
import type {} from './templates/resource.ts'
import type {} from './templates/rule.ts'
import type {} from './templates/seeder.ts'
import type {} from './templates/service.ts'
import type {} from './templates/test.ts'
