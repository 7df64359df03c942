/**
 * The language server's side of the contract: its custom requests are named
 * in cli/contract, and the alias check asks the real app (through loadApp)
 * which aliases exist. The documents themselves: tests/contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as contract from '../../cli/contract/index.ts'
import { checkAliases } from '../../cli/lsp/alias-check.ts'
import { findProject } from '../../cli/project/project.ts'
import { assertBuilt, copyExampleApp, type AppCopy } from '../helpers/cli.ts'

let app: AppCopy

beforeAll(() => {
  assertBuilt()
  app = copyExampleApp('blog')
})
afterAll(() => app?.remove())

describe('the contract', () => {
  it('names every request of the language server', () => {
    expect(Object.values(contract.SvcRequest).sort()).toEqual([
      'svc/authToken',
      'svc/refreshRoutes',
      'svc/replay',
      'svc/routes',
      'svc/stats',
      'svc/status',
      'svc/top',
      'svc/trace',
      'svc/traceUsers',
      'svc/traces',
      'svc/why',
    ])
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
