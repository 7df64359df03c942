/**
 * One source for each `--json` document: the contract's TypeScript types.
 * schemas.json is generated from them and must be current; every command
 * that takes `--json` names its documents (meta.json) and each has a schema;
 * the schemas are exact (an undeclared field fails). What the commands
 * print is validated against these schemas by every test that reads JSON
 * through tests/helpers/run-svc.ts.
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadManifest, type ManifestCommand } from '../../cli/command/manifest.ts'
import type { ContractDocuments } from '../../cli/contract/index.ts'
import { generateContractSchemas, SCHEMAS_FILE } from '../../scripts/contract-schemas.ts'
import { contractValidator } from '../helpers/run-svc.ts'

/** Every document name, checked by tsc against ContractDocuments (a missing or extra key is a type error). */
const DOCUMENTS: { [K in keyof ContractDocuments]: K } = {
  ApiTestJson: 'ApiTestJson',
  ApiTestLoopJson: 'ApiTestLoopJson',
  BenchmarkJson: 'BenchmarkJson',
  AuthTokenJson: 'AuthTokenJson',
  CleanupJson: 'CleanupJson',
  CliErrorJson: 'CliErrorJson',
  CommandListJson: 'CommandListJson',
  ConfigCacheJson: 'ConfigCacheJson',
  DbSeedJson: 'DbSeedJson',
  DbTableJson: 'DbTableJson',
  DbTablesJson: 'DbTablesJson',
  DbWhyJson: 'DbWhyJson',
  DeployJson: 'DeployJson',
  DoctorJson: 'DoctorJson',
  EnvCacheJson: 'EnvCacheJson',
  EnvCheckJson: 'EnvCheckJson',
  EnvSwitchJson: 'EnvSwitchJson',
  ExportJson: 'ExportJson',
  FixJson: 'FixJson',
  KeyGenerateJson: 'KeyGenerateJson',
  KeyGenerateRs256Json: 'KeyGenerateRs256Json',
  MaintenanceJson: 'MaintenanceJson',
  MakeApiKeyJson: 'MakeApiKeyJson',
  MakeJson: 'MakeJson',
  MakeMigrationsJson: 'MakeMigrationsJson',
  MakeOpenApiJson: 'MakeOpenApiJson',
  MakePostmanJson: 'MakePostmanJson',
  MigrateFreshJson: 'MigrateFreshJson',
  MigrateJson: 'MigrateJson',
  MigrationBundleJson: 'MigrationBundleJson',
  MigrationStatusJson: 'MigrationStatusJson',
  OptimizeJson: 'OptimizeJson',
  NewProjectJson: 'NewProjectJson',
  PostmanCollectionJson: 'PostmanCollectionJson',
  QueueFlushJson: 'QueueFlushJson',
  QueueRetryJson: 'QueueRetryJson',
  QueueStatusJson: 'QueueStatusJson',
  RateStatusJson: 'RateStatusJson',
  RegressionJson: 'RegressionJson',
  ReplayJson: 'ReplayJson',
  RollbackJson: 'RollbackJson',
  RouteListJson: 'RouteListJson',
  RouteRulesJson: 'RouteRulesJson',
  RouteSearchJson: 'RouteSearchJson',
  ScheduleListJson: 'ScheduleListJson',
  ScheduleRunJson: 'ScheduleRunJson',
  ServerStatusJson: 'ServerStatusJson',
  SlowJson: 'SlowJson',
  StorageLinkJson: 'StorageLinkJson',
  StatsJson: 'StatsJson',
  TestRunJson: 'TestRunJson',
  TopJson: 'TopJson',
  TraceJson: 'TraceJson',
  TraceListJson: 'TraceListJson',
  TraceSummaryJson: 'TraceSummaryJson',
  TraceUsersJson: 'TraceUsersJson',
  UserRoleJson: 'UserRoleJson',
  WhyJson: 'WhyJson',
}

let commands: ManifestCommand[]
beforeAll(async () => {
  commands = (await loadManifest()).commands
})

describe('the JSON contract', () => {
  it('schemas.json is generated from the current types (npm run contract:schemas)', () => {
    expect(readFileSync(SCHEMAS_FILE, 'utf8'), 'cli/contract/schemas.json is stale: run npm run contract:schemas').toBe(generateContractSchemas())
  }, 60_000)

  it('has a schema for every document', () => {
    for (const name of Object.values(DOCUMENTS)) expect(() => contractValidator(name), name).not.toThrow()
  })

  it('every command that takes --json names the documents it prints, and only those do', () => {
    const withJson = commands.filter((command) => command.args.some((arg) => arg.name === 'json'))
    expect(withJson.length).toBeGreaterThan(20)
    for (const command of commands) {
      const takesJson = withJson.includes(command)
      expect(command.json.length > 0, `${command.name}: --json ${takesJson ? 'without' : 'is not an option, yet'} meta.json`).toBe(takesJson)
      for (const name of command.json) expect(Object.values(DOCUMENTS), `${command.name} names ${name}`).toContain(name)
    }
  })

  it('is exact: a missing field, a wrong type, an unknown enum value or an undeclared field fails', () => {
    const route = { method: 'GET', path: '/x', params: [], middleware: [], handler: 'h', source: null, group: null, version: null, schemas: { body: false, query: false, response: false } }
    const routes = contractValidator('RouteListJson')
    expect(routes({ routes: [route] })).toBe(true)
    expect(routes({ routes: [{ method: 'GET', path: '/x' }] })).toBe(false)
    expect(routes({ routes: [{ ...route, method: 'FETCH' }] })).toBe(false)
    expect(routes({ routes: [{ ...route, extra: 1 }] })).toBe(false)
    const status = contractValidator('ServerStatusJson')
    expect(status({ state: 'ready', app: null, error: null, routes: 1, traces: null, replays: null, version: '0.1.0' })).toBe(true)
    expect(status({ state: 'busy', app: null, error: null, routes: 1, traces: null, replays: null, version: '0.1.0' })).toBe(false)
    expect(contractValidator('RollbackJson')({ rolled_back: 'x' })).toBe(false)
  })
})
