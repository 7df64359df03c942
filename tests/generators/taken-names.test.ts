/**
 * Names the generated code itself uses: every identifier a built-in template
 * imports (read from the golden renderings, so the list follows the
 * templates), given to every generator that takes a name. Each one either
 * refuses it (E_BAD_NAME, before writing) or writes code that type-checks;
 * `make:crud HttpError` and `make:crud SortKey` are refused.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseModule, statements, type Node } from '../../cli/generators/codemods/source.ts'
import { planCrud } from '../../cli/generators/crud.ts'
import { Generator } from '../../cli/generators/generator.ts'
import { writePlan, type Plan } from '../../cli/generators/write-plan.ts'
import { findProject, type Project } from '../../cli/project/project.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { generatorApp, typecheck } from './helpers.ts'

const GOLDEN = join(import.meta.dirname, 'golden')

/** Every local name the built-in templates import (`Context`, `HttpError`, `SortKey`, `v`, `describe`...). */
function importedByTemplates(): string[] {
  const names = new Set<string>()
  for (const file of readdirSync(GOLDEN)) {
    const parsed = parseModule(readFileSync(join(GOLDEN, file), 'utf8'))
    if ('error' in parsed) throw new Error(`${file}: ${parsed.error}`)
    for (const statement of statements(parsed.program)) {
      // A package's exports; relative imports are the app's own files, named after the resource.
      if (statement.type !== 'ImportDeclaration' || ((statement.source as Node).value as string).startsWith('.')) continue
      for (const specifier of statement.specifiers as Node[]) names.add((specifier.local as Node).name as string)
    }
  }
  return [...names].sort()
}

/** Every generator that takes a name, run on `name` inside `folder` (so that runs of different names do not share files). */
// In this order: with --force, a later generator overwrites an earlier one's file with its own (the list request).
const GENERATORS: Record<string, (g: Generator, folder: string, name: string) => Promise<Plan>> = {
  'make:request': (g, f, n) => g.request(`${f}/${n}`, { fields: 'title:string' }),
  'make:model --migration': (g, f, n) => g.model(`${f}/${n}`, { fields: 'title:string,due_on:date?', migration: true }),
  'make:migration': (g, f, n) => g.migration(`${f}/${n}`, {}),
  'make:controller': (g, f, n) => g.controller(`${f}/${n}`, {}),
  'make:controller --resource': (g, f, n) => g.controller(`${f}/${n}`, { resource: true }),
  'make:repository': (g, f, n) => g.repository(`${f}/${n}`, {}),
  'make:service': (g, f, n) => g.service(`${f}/${n}`),
  'make:resource': (g, f, n) => g.resource(`${f}/${n}`, {}),
  'make:middleware': (g, f, n) => g.middleware(`${f}/${n}`),
  'make:observer': (g, f, n) => g.observer(`${f}/${n}`),
  'make:rule': (g, f, n) => g.rule(`${f}/${n}`),
  'make:event': (g, f, n) => g.event(`${f}/${n}`),
  'make:listener': (g, f, n) => g.listener(`${f}/${n}`, { event: `${f}/${n}Happened` }),
  'make:listener --event': (g, f, n) => g.listener(`${f}/On${n}`, { event: `${f}/${n}` }),
  'make:job': (g, f, n) => g.job(`${f}/${n}`),
  'make:mail': (g, f, n) => g.mail(`${f}/${n}`),
  'make:test': (g, f, n) => g.test(`${f}/${n}`),
  'make:factory': (g, f, n) => g.factory(`${f}/${n}`, {}),
  'make:seeder': (g, f, n) => g.seeder(`${f}/${n}`, { count: 3 }),
  'make:crud': (g, f, n) => planCrud(g, `${f}c/${n}`, { seed: true }),
  'make:crud --simple --public': (g, f, n) => planCrud(g, `${f}s/${n}`, { simple: true, public: true }),
}

let app: AppCopy
let project: Project
const taken = importedByTemplates()
const refused = new Map<string, string[]>()

beforeAll(async () => {
  app = generatorApp()
  project = findProject(app.dir)
  for (const [i, name] of taken.entries()) {
    for (const [command, plan] of Object.entries(GENERATORS)) {
      try {
        // Forced: tables are not nested, so n0/Context and n0c/Context share create_contexts_table.
        await writePlan(project, await plan(new Generator(project), `n${i}`, name), true)
      } catch (error) {
        if ((error as { code?: string }).code !== 'E_BAD_NAME') throw new Error(`${command} ${name}: ${(error as Error).message}`, { cause: error })
        refused.set(name, [...(refused.get(name) ?? []), command])
      }
    }
  }
}, 120_000)
afterAll(() => app?.remove())

describe('names the templates import', () => {
  it('are read from the templates', () => {
    expect(taken).toEqual(expect.arrayContaining(['Context', 'Database', 'HttpError', 'Page', 'SortKey', 'defineModel', 'v']))
  })

  it('make:crud refuses HttpError and SortKey (E_BAD_NAME) before writing anything', async () => {
    expect(refused.get('HttpError')).toEqual(expect.arrayContaining(['make:crud', 'make:crud --simple --public']))
    expect(refused.get('SortKey')).toEqual(expect.arrayContaining(['make:crud', 'make:repository']))
    const generator = new Generator(project)
    await expect(planCrud(generator, 'HttpError', {})).rejects.toMatchObject({
      code: 'E_BAD_NAME',
      message: expect.stringContaining('imports HttpError'),
    })
  })

  it('every generator either refused the name or wrote code that type-checks', async () => {
    const result = await typecheck(app)
    expect(result.output).toBe('')
    expect(result.code).toBe(0)
  }, 180_000)
})
