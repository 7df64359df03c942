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

// Each kind's options (importing them also loads each template's entry in TemplateOptions, for `Stub<'model'>`).
export type { ControllerOptions } from './templates/controller.ts'
export type { EventOptions } from './templates/event.ts'
export type { FactoryOptions } from './templates/factory.ts'
export type { JobOptions } from './templates/job.ts'
export type { LangOptions } from './templates/lang.ts'
export type { ListenerOptions } from './templates/listener.ts'
export type { MailOptions } from './templates/mail.ts'
export type { MiddlewareOptions } from './templates/middleware.ts'
export type { MigrationOptions } from './templates/migration.ts'
export type { ModelOptions } from './templates/model.ts'
export type { ObserverOptions } from './templates/observer.ts'
export type { RepositoryOptions } from './templates/repository.ts'
export type { RequestOptions } from './templates/request.ts'
export type { ResourceOptions } from './templates/resource.ts'
export type { RuleOptions } from './templates/rule.ts'
export type { SeederOptions } from './templates/seeder.ts'
export type { ServiceOptions } from './templates/service.ts'
export type { TestOptions } from './templates/test.ts'
