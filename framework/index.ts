/**
 * svc: a framework for token-authenticated JSON APIs on web standards only.
 * This entry is what an app is written with, and runs in any fetch runtime.
 * Node-only helpers are in `svc/node`, request traces (the tracer, its store
 * and record format) in `svc/trace`, test helpers in `svc/testing`.
 */
export {
  createApp,
  defineKernel,
  API_PREFIX,
  type App,
  type AppOptions,
  type AppPlugin,
  type AppPluginSpec,
  type KernelOptions,
} from './app/create-app.ts'
export { afterResponse, CONN_INFO, connInfoFromEnv, type ConnInfo, type ConnInfoEnv, type ConnInfoReader } from './app/conn-info.ts'
export { logUnexpectedError, type ErrorHook } from './app/on-error.ts'
export { pendingApp, withServedUrl, type PendingApp } from './app/listen-first.ts'
export { resolveConfig, ConfigError, type AppConfig, type AppEnvironment, type EnvRecord, type JwtAlgorithm } from './config/config.ts'
export {
  Context,
  type AuthUser,
  type BodyOf,
  type ContextState,
  type ExecutionContextLike,
  type InputSchemas,
  type MatchedRoute,
  type QueryOf,
} from './context/context.ts'
export {
  createDatabase,
  NoTransactionsError,
  readThenWrite,
  type Database,
  type DatabaseOptions,
  type QueryObserver,
  type QueryRecord,
  type ResultSet,
  type Statement,
} from './database/database.ts'
export { NulTextError, NumberArgumentError } from './database/argument-check.ts'
export type { DatabaseDriver, DriverTransaction, SqlStatement } from './database/driver.ts'
export {
  migrate,
  migrateFresh,
  migrationStatus,
  rollback,
  MigrationError,
  type Migration,
  type MigrationEvents,
  type MigrationStatus,
} from './database/migrator.ts'
export { runChecks, type CheckResult, type HealthCheck } from './health/health.ts'
export { HttpError, ValidationError, isHttpError, type ErrorDetails, type FieldErrors, type UnwordedFailure } from './http/http-error.ts'
export { DatabaseUnreachableError, ServiceBusyError } from './http/service-busy.ts'
export { TRACE_HEADER, type EnvelopeOptions, type ErrorEnvelope, type SuccessEnvelope } from './http/response.ts'
export { parseAlias, type AliasRegistry, type AppServices, type MiddlewareFactory } from './middleware/aliases.ts'
export { cors, type CorsOptions } from './middleware/cors/index.ts'
export {
  maintenanceMode,
  DEFAULT_MAINTENANCE_MESSAGE,
  DEFAULT_RETRY_SECONDS,
  MAINTENANCE_BYPASS_HEADER,
  MAINTENANCE_COOKIE,
  type MaintenanceSource,
  type MaintenanceState,
} from './middleware/maintenance/index.ts'
export { defineRoutes, RouteHandle, RouteRegistrar, type GroupOptions, type RouteDefinition } from './router/define-routes.ts'
export { RouteDefinitionError } from './router/path-grammar.ts'
export type {
  Handler,
  Middleware,
  MiddlewareSpec,
  Next,
  RouteDescription,
  RouteMethod,
  ResponseOptions,
  RouteParam,
  RouteResponses,
  RouteSchemas,
  SourceLocation,
} from './router/types.ts'
export type { PathParams } from './router/path-params.ts'
export { validateWith, checkWith, type ValidationResult } from './validation/validate.ts'
export { defaultValidationMessage } from './validation/messages.ts'
export { fieldFailure } from './validation/field-failure.ts'
export { namedCheck, type InputSource, type ValidationIssue, type ValidationMessageFormatter } from './validation/issues.ts'
export { paginationQuery, type Pagination, type PaginationOptions } from './validation/pagination.ts'
export { maxChars, minChars, utcTimestamp, withoutNul } from './validation/rules.ts'
export { visibleText } from './auth/text-rules.ts'
export {
  authPlugin,
  isAuthPlugin,
  requireRole,
  requireVerifiedEmail,
  bearerToken,
  systemClock,
  createPasswordHasher,
  portableArgon2id,
  limitHashing,
  resolveAuthSettings,
  generateRsaKeyPair,
  authMigrations,
  apiKeysMigration,
  userFactory,
  TokenError,
  OWASP_ARGON2ID,
  PRIVATE_KEY_FILE,
  PUBLIC_KEY_FILE,
  type AuthPluginOptions,
  type AuthState,
  type AuthSettings,
  type AuthUserAttributes,
  type AuthUserRow,
  type Clock,
  type JwtKeyMaterial,
  type Argon2id,
  type HashingLimits,
  type PasswordHasher,
  type PasswordHashParams,
  type TokenClaims,
  type TokenPair,
  type TokenType,
} from './auth/index.ts'
export {
  consoleMailer,
  memoryMailer,
  formatMail,
  defineMail,
  html,
  escapeHtml,
  textToHtml,
  SafeHtml,
  queuedMailer,
  sendMailJob,
  sendOrQueue,
  MailMessageError,
  type Mailer,
  type MailMessage,
  type MemoryMailer,
  type MailDefinition,
  type MailDefinitionOptions,
  type RenderedMail,
} from './mail/index.ts'
export { resolveMailSettings, type MailSettings } from './mail/settings.ts'
export {
  defineJob,
  isJobDefinition,
  createQueue,
  jobRegistry,
  runJob,
  runWorker,
  checkTimeout,
  backoffDelay,
  syncQueueDriver,
  databaseQueueDriver,
  queueMigration,
  PermanentJobError,
  JobTimeoutError,
  LeaseLostError,
  QueueConfigError,
  DEFAULT_QUEUE,
  DEFAULT_LEASE_MS,
  type BackoffOptions,
  type DispatchOptions,
  type DispatchedJob,
  type FailedJob,
  type JobContext,
  type JobDefinition,
  type JobError,
  type JobInfo,
  type JobOptions,
  type JobRegistry,
  type JobRunResult,
  type JobServices,
  type JsonValue,
  type NewJob,
  type PushedJob,
  type Queue,
  type QueueCounts,
  type QueueDriver,
  type Reservation,
  type WorkerEvent,
  type WorkerOptions,
  type WorkerStop,
  type WorkerSummary,
} from './queue/index.ts'
export {
  idempotent,
  canonicalJson,
  pruneIdempotencyKeys,
  idempotencyMigration,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  type IdempotencyOptions,
} from './idempotency/index.ts'
export { resolveIdempotencySettings } from './idempotency/alias.ts'
export {
  cron,
  everyMinute,
  everyFiveMinutes,
  hourly,
  daily,
  dailyAt,
  defineSchedule,
  isSchedule,
  isTimeZone,
  builtinTask,
  isDue,
  nextRunOf,
  runSchedule,
  BUILTIN_TASKS,
  ScheduleDefinitionError,
  type Schedule,
  type ScheduledTask,
  type TaskContext,
  type TaskOptions,
  type TaskResult,
  type TaskRun,
} from './scheduler/index.ts'
export { resolveQueueSettings, type QueueConnection, type QueueSettings } from './queue/settings.ts'
export {
  throttle,
  clientKey,
  memoryThrottleStore,
  databaseThrottleStore,
  type ThrottleOptions,
  type ThrottleStore,
  type ThrottleHit,
} from './middleware/throttle/index.ts'
export {
  apiKey,
  scopedApiKey,
  currentApiKey,
  createApiKey,
  parseScopes,
  API_KEY_HEADER,
  type ApiKeyRecord,
  type CreatedApiKey,
} from './middleware/api-key/index.ts'
export { defineRule, type RuleDefinition } from './validation/define-rule.ts'
export {
  defineModel,
  defineFactory,
  type Cast,
  type ColumnOf,
  type Factory,
  type FactoryAttributes,
  type ListOptions,
  type Model,
  type ModelDefinition,
  type ModelObserver,
  type Page,
  type ParentFactory,
  type PageMeta,
  type PageOptions,
  type SortKey,
} from './model/index.ts'
export {
  defineListener,
  emit,
  forget,
  listen,
  listenersOf,
  listenerNamed,
  releaseListeners,
  useListenerQueue,
  useListenerServices,
  type EmitScope,
  type EventClass,
  type ListenerContext,
  type Listener,
  type ListenerOptions,
  type ListenerQueue,
  type ListenerHandOff,
} from './events/index.ts'
export { listenerJob, listenerQueue, type QueuedListenerPayload } from './events/queued.ts'
export {
  createTranslator,
  negotiateLocale,
  type Messages,
  type Translate,
  type TranslationParams,
  type Translator,
  type TranslatorOptions,
} from './i18n/index.ts'
