/**
 * The one contract: the non-trace documents' JSON Schemas validate what the
 * built CLI prints, the contract's types are the commands' own types, and
 * the alias check asks the real app (through loadApp) which aliases exist.
 */
import { Ajv } from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CommandListJson as ListCommandJson } from '../../cli/commands/list.ts'
import type { KeyGenerateJson as KeyCommandJson } from '../../cli/commands/key/generate.ts'
import type { MigrateFreshJson as FreshCommandJson } from '../../cli/commands/migrate/fresh.ts'
import type { RollbackJson as RollbackCommandJson } from '../../cli/commands/migrate/rollback.ts'
import type { MigrateJson as MigrateCommandJson } from '../../cli/commands/migrate/run.ts'
import type { MigrationStatusJson as StatusCommandJson } from '../../cli/commands/migrate/status.ts'
import type { RouteListJson as RouteCommandJson } from '../../cli/commands/route/list.ts'
import * as contract from '../../cli/contract/index.ts'
import { checkAliases } from '../../cli/lsp/alias-check.ts'
import { findProject } from '../../cli/project/project.ts'
import { assertBuilt, copyExampleApp, svcJson, type AppCopy } from '../helpers/cli.ts'

/** True only when A and B are the same type (checked by tsc: `npm run typecheck`). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const sameTypes: [
  Same<contract.RouteListJson, RouteCommandJson>,
  Same<contract.CommandListJson, ListCommandJson>,
  Same<contract.MigrateJson, MigrateCommandJson>,
  Same<contract.MigrationStatusJson, StatusCommandJson>,
  Same<contract.RollbackJson, RollbackCommandJson>,
  Same<contract.MigrateFreshJson, FreshCommandJson>,
  Same<contract.KeyGenerateJson, KeyCommandJson>,
] = [true, true, true, true, true, true, true]

const ajv = new Ajv({ allErrors: true, strict: false })

function expectValid(schema: object, value: unknown): void {
  const validate = ajv.compile(schema)
  const valid = validate(value)
  expect(validate.errors ?? [], JSON.stringify(value).slice(0, 400)).toEqual([])
  expect(valid).toBe(true)
}

let app: AppCopy

beforeAll(() => {
  assertBuilt()
  app = copyExampleApp('blog')
})
afterAll(() => app?.remove())

describe('the contract', () => {
  it('has the same types as the commands that print the documents', () => {
    expect(sameTypes.every(Boolean)).toBe(true)
  })

  it('re-exports the trace contract and names every request of the language server', () => {
    expect(contract.traceListSchema).toBeDefined()
    expect(contract.replaySchema).toBeDefined()
    expect(Object.values(contract.SvcRequest).sort()).toEqual(['svc/replay', 'svc/routes', 'svc/status', 'svc/trace', 'svc/traces'])
  })

  it('validates what the CLI prints for route:list, list, migrate, migrate:status, migrate:rollback, migrate:fresh and key:generate', async () => {
    const cwd = app.dir
    expectValid(contract.routeListSchema, await svcJson(['route:list'], { cwd }))
    expectValid(contract.commandListSchema, await svcJson(['list'], { cwd }))
    expectValid(contract.keyGenerateSchema, await svcJson(['key:generate', '--show'], { cwd }))
    expectValid(contract.migrateSchema, await svcJson(['migrate'], { cwd, timeoutMs: 60_000 }))
    expectValid(contract.migrationStatusSchema, await svcJson(['migrate:status'], { cwd }))
    expectValid(contract.rollbackSchema, await svcJson(['migrate:rollback'], { cwd }))
    expectValid(contract.migrateFreshSchema, await svcJson(['migrate:fresh', '--seed'], { cwd, timeoutMs: 60_000 }))
  }, 120_000)

  it('rejects documents that break it', () => {
    const validate = ajv.compile(contract.routeListSchema)
    expect(validate({ routes: [{ method: 'GET', path: '/x' }] })).toBe(false)
    expect(validate({ routes: [{ method: 'FETCH', path: '/x', params: [], middleware: [], handler: 'h', source: null, group: null, version: null }] })).toBe(false)
    expect(ajv.compile(contract.serverStatusSchema)({ state: 'ready', app: null, error: null, routes: 1, traces: null, version: '0.1.0' })).toBe(true)
    expect(ajv.compile(contract.serverStatusSchema)({ state: 'busy', app: null, error: null, routes: 1, traces: null, version: '0.1.0' })).toBe(false)
  })
})

describe('alias check', () => {
  it('asks the app which aliases exist, with the framework message for unknown or invalid ones', async () => {
    const results = await checkAliases(findProject(app.dir), ['auth', 'auth:admin', 'throttle:10,1', 'nosuch', 'throttle:abc'])
    expect(results.get('auth')).toBeNull()
    expect(results.get('auth:admin')).toBeNull()
    expect(results.get('throttle:10,1')).toBeNull()
    expect(results.get('nosuch')).toMatch(/^Unknown middleware alias "nosuch" \(known aliases: .*auth.*\)/)
    expect(results.get('throttle:abc')).toMatch(/throttle:abc/)
  }, 60_000)
})
