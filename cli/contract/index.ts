/**
 * The one contract between the CLI, the language server and the VS Code
 * extension: the `--json` documents and the language server's custom
 * requests. Each document is declared once, as a TypeScript type (the trace
 * record and the route description are the framework's own); the JSON
 * Schemas in schemas.json are generated from these types
 * (`npm run contract:schemas`, checked by tests/contract). Types only.
 */
import type {
  AuthTokenJson,
  CommandListJson,
  KeyGenerateJson,
  KeyGenerateRs256Json,
  MakeApiKeyJson,
  MakeMigrationsJson,
  MigrateFreshJson,
  MigrateJson,
  MigrationBundleJson,
  MigrationStatusJson,
  RollbackJson,
  RouteListJson,
  ServerStatusJson,
} from './routes.ts'
import type { ConfigCacheJson, DeployJson, DoctorJson, EnvCacheJson, EnvCheckJson, EnvSwitchJson, MaintenanceJson, OptimizeJson } from './operations.ts'
import type {
  CleanupJson,
  DbWhyJson,
  ExportJson,
  FixJson,
  PostmanCollectionJson,
  RegressionJson,
  ReplayJson,
  SlowJson,
  StatsJson,
  TopJson,
  TraceJson,
  TraceListJson,
  TraceSummaryJson,
  TraceUsersJson,
  WhyJson,
} from './traces.ts'
import type { QueueFlushJson, QueueRetryJson, QueueStatusJson, ScheduleListJson, ScheduleRunJson } from './background.ts'
import type { ApiTestJson, ApiTestLoopJson, BenchmarkJson, RateStatusJson, StorageLinkJson } from './devtools.ts'
import type { RouteRulesJson, RouteSearchJson } from './route-tools.ts'
import type { DbSeedJson, DbTableJson, DbTablesJson, UserRoleJson } from './database.ts'
import type { NewProjectJson } from './new-project.ts'
import type { MakeOpenApiJson, MakePostmanJson } from './api-docs.ts'
import type { MakeJson } from './generators.ts'
import type { TestRunJson } from './testing.ts'
import type { CliErrorJson } from './errors.ts'

export * from './routes.ts'
export * from './route-tools.ts'
export * from './database.ts'
export * from './new-project.ts'
export * from './api-docs.ts'
export * from './traces.ts'
export * from './lsp.ts'
export * from './background.ts'
export * from './devtools.ts'
export * from './operations.ts'
export * from './generators.ts'
export * from './testing.ts'
export * from './errors.ts'

/**
 * Every document a command prints with `--json`, by name. A command names
 * the ones it prints in its `meta.json`; the name is also the document's key
 * in schemas.json's `definitions`. CliErrorJson is what any of them prints
 * instead when it fails (cli/main.ts), so no `meta.json` names it.
 */
export interface ContractDocuments {
  ApiTestJson: ApiTestJson
  ApiTestLoopJson: ApiTestLoopJson
  BenchmarkJson: BenchmarkJson
  AuthTokenJson: AuthTokenJson
  CleanupJson: CleanupJson
  CliErrorJson: CliErrorJson
  CommandListJson: CommandListJson
  ConfigCacheJson: ConfigCacheJson
  DbSeedJson: DbSeedJson
  DbTableJson: DbTableJson
  DbTablesJson: DbTablesJson
  DbWhyJson: DbWhyJson
  DeployJson: DeployJson
  DoctorJson: DoctorJson
  EnvCacheJson: EnvCacheJson
  EnvCheckJson: EnvCheckJson
  EnvSwitchJson: EnvSwitchJson
  ExportJson: ExportJson
  FixJson: FixJson
  KeyGenerateJson: KeyGenerateJson
  KeyGenerateRs256Json: KeyGenerateRs256Json
  MaintenanceJson: MaintenanceJson
  MakeApiKeyJson: MakeApiKeyJson
  MakeJson: MakeJson
  MakeMigrationsJson: MakeMigrationsJson
  MakeOpenApiJson: MakeOpenApiJson
  MakePostmanJson: MakePostmanJson
  MigrateFreshJson: MigrateFreshJson
  MigrateJson: MigrateJson
  MigrationBundleJson: MigrationBundleJson
  MigrationStatusJson: MigrationStatusJson
  OptimizeJson: OptimizeJson
  NewProjectJson: NewProjectJson
  PostmanCollectionJson: PostmanCollectionJson
  QueueFlushJson: QueueFlushJson
  QueueRetryJson: QueueRetryJson
  QueueStatusJson: QueueStatusJson
  RateStatusJson: RateStatusJson
  RegressionJson: RegressionJson
  ReplayJson: ReplayJson
  RollbackJson: RollbackJson
  RouteListJson: RouteListJson
  RouteRulesJson: RouteRulesJson
  RouteSearchJson: RouteSearchJson
  ScheduleListJson: ScheduleListJson
  ScheduleRunJson: ScheduleRunJson
  ServerStatusJson: ServerStatusJson
  SlowJson: SlowJson
  StorageLinkJson: StorageLinkJson
  StatsJson: StatsJson
  TestRunJson: TestRunJson
  TopJson: TopJson
  TraceJson: TraceJson
  TraceListJson: TraceListJson
  TraceSummaryJson: TraceSummaryJson
  TraceUsersJson: TraceUsersJson
  UserRoleJson: UserRoleJson
  WhyJson: WhyJson
}
