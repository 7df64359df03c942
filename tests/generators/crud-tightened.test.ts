/**
 * The tests make:crud writes, once the app tightens its request schema with
 * valibot's common actions (`v.url()`, `v.email()`, `v.uuid()`, a `v.regex`,
 * a `v.maxLength`) and puts unique indexes on those columns: they still pass
 * (the update's change of the first column, `code` here, included).
 * The rows they create used to append ` 1` to every string, which none of
 * those accept, and an email or URL column's example was `Link example`.
 * Then `variedRow` itself, in process: each column gets a spelling the
 * schema accepts, different for each n.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { variedRow } from '../../framework/testing/index.ts'
import { SECRET } from '../auth/helpers.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc } from '../helpers/run-svc.ts'
import { generatorApp, projectTests } from './helpers.ts'

describe('make:crud tests after the app tightens its request', () => {
  let app: AppCopy
  beforeAll(async () => {
    app = generatorApp()
    app.write('.env', `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
    const made = await runSvc(['make:crud', 'Link', '--fields=code:string,title:string,url:string,contact_email:string?,ref_uuid:string,note:text?'], { cwd: app.dir })
    expect(made.exitCode, made.stderr).toBe(0)
  })
  afterAll(() => app?.remove())

  it('the generated test passes with v.url, v.email, v.uuid, v.regex and v.maxLength added, and unique indexes on those columns', async () => {
    const tighten: Array<[column: string, action: string]> = [
      ['title', 'v.maxLength(12)'],
      ['url', 'v.url()'],
      ['contact_email', 'v.email()'],
      ['ref_uuid', 'v.uuid()'],
      ['code', 'v.regex(/^[A-Z]{3}-\\d{3}$/)'],
    ]
    let request = app.read('app', 'requests', 'link-request.ts')
    for (const [column, action] of tighten) {
      const line = new RegExp(`^(  ${column}: .*maxChars\\(255\\))(.*)$`, 'm')
      expect(request, column).toMatch(line)
      request = request.replace(line, `$1, ${action}$2`)
    }
    app.write('app/requests/link-request.ts', request)
    // What the user writes in the test for a format no column name tells (the code's).
    const test = app.read('tests', 'links.test.ts')
    expect(test).toContain("code: 'Link example'")
    app.write('tests/links.test.ts', test.replace("code: 'Link example'", "code: 'ABC-123'"))
    const migrations = app.path('database', 'migrations')
    const migration = readdirSync(migrations).find((file) => file.endsWith('_create_links_table.ts'))!
    const unique = ['title', 'url', 'contact_email', 'ref_uuid', 'code'].map((column) => `  await db.execute('create unique index "links_${column}_unique" on "links" ("${column}")')\n`).join('')
    const text = readFileSync(`${migrations}/${migration}`, 'utf8')
    expect(text).toContain('  )`)\n')
    writeFileSync(`${migrations}/${migration}`, text.replace('  )`)\n', `  )\`)\n${unique}`))

    const result = await projectTests(app, ['tests/links.test.ts'])
    expect(result.output).toMatch(/✓ tests\/links\.test\.ts/)
    expect(result.code, result.output).toBe(0)
  }, 180_000)
})

describe('make:crud tests after the app makes its request transform (v.toLowerCase(), v.trim())', () => {
  let app: AppCopy
  beforeAll(async () => {
    app = generatorApp()
    app.write('.env', `APP_ENV=test\nAPP_DEBUG=false\nJWT_SECRET=${SECRET}\nPASSWORD_HASH_MEMORY_KIB=64\nPASSWORD_HASH_ITERATIONS=1\n`)
    const made = await runSvc(['make:crud', 'Tag', '--fields=name:string,slug:string,weight:integer'], { cwd: app.dir })
    expect(made.exitCode, made.stderr).toBe(0)
  })
  afterAll(() => app?.remove())

  it('the generated test passes: it compares the answers with the schema output, not with what it sent', async () => {
    // The created row's check compared the answer with the body sent, `Tag example`, and the update's with its
    // varied `Tag example 5`: the app answers them lower-cased and trimmed.
    const request = app.read('app', 'requests', 'tag-request.ts')
    const lowered = request.replace(/^( {2}(name|slug): v\.pipe\(v\.string\(\), v\.trim\(\)), /gm, '$1, v.toLowerCase(), ')
    expect(lowered.match(/v\.toLowerCase\(\)/g)).toHaveLength(2)
    app.write('app/requests/tag-request.ts', lowered)
    // What a user may well write in the test: spaces around a value the schema trims.
    const test = app.read('tests', 'tags.test.ts')
    expect(test).toContain("name: 'Tag example'")
    app.write('tests/tags.test.ts', test.replace("name: 'Tag example'", "name: '  Tag Example  '"))
    const migrations = app.path('database', 'migrations')
    const migration = readdirSync(migrations).find((file) => file.endsWith('_create_tags_table.ts'))!
    const text = readFileSync(`${migrations}/${migration}`, 'utf8')
    writeFileSync(`${migrations}/${migration}`, text.replace('  )`)\n', "  )`)\n  await db.execute('create unique index \"tags_name_unique\" on \"tags\" (\"name\")')\n"))

    const result = await projectTests(app, ['tests/tags.test.ts'])
    expect(result.output).toMatch(/✓ tests\/tags\.test\.ts/)
    expect(result.code, result.output).toBe(0)
  }, 180_000)
})

describe('variedRow', () => {
  const schema = v.object({
    title: v.pipe(v.string(), v.maxLength(12)),
    url: v.pipe(v.string(), v.url()),
    email: v.pipe(v.string(), v.email()),
    uuid: v.pipe(v.string(), v.uuid()),
    code: v.pipe(v.string(), v.regex(/^[A-Z]{3}-\d{3}$/)),
    slug: v.pipe(v.string(), v.regex(/^[a-z]+$/)),
    plain: v.string(),
    stock: v.pipe(v.number(), v.maxValue(10)),
    parent_id: v.number(),
  })
  const valid = { title: 'Link example', url: 'https://example.com/link', email: 'link@example.com', uuid: '3b241101-e2bb-4255-8caf-4136c566a962', code: 'ABC-123', slug: 'link', plain: 'Plain', stock: 10, parent_id: 4 }
  const columns = ['title', 'url', 'email', 'uuid', 'code', 'slug', 'plain', 'stock'] as const

  it('gives each column a value the schema accepts, different from the valid one and for each n', async () => {
    const rows = await Promise.all([1, 2, 3, 9, 10].map((n) => variedRow(schema, valid, n, [...columns])))
    for (const row of rows) expect(v.safeParse(schema, row).issues).toBeUndefined()
    for (const column of columns) expect(new Set([valid[column], ...rows.map((row) => row[column])]).size, column).toBe(rows.length + 1)
    expect(rows.every((row) => row.parent_id === 4)).toBe(true) // a column not named is kept
    expect(rows[0]).toMatchObject({ plain: 'Plain 1', title: 'Link exampl1', email: 'link+1@example.com', code: 'ABC-124', slug: 'linka', stock: 11 - 2 })
  })

  it('for a transforming schema, values it keeps as they are: what is sent is what it answers', async () => {
    const lowered = v.object({ name: v.pipe(v.string(), v.trim(), v.toLowerCase()), code: v.pipe(v.string(), v.toUpperCase(), v.regex(/^[A-Z]+$/)) })
    const sent = { name: '  Tag Example', code: 'abc' }
    const rows = await Promise.all([1, 2, 3, 27].map((n) => variedRow(lowered, sent, n, ['name', 'code'])))
    for (const row of rows) expect(v.parse(lowered, row)).toEqual(row)
    expect(rows[0]).toEqual({ name: 'tag example 1', code: 'ABCA' })
    // Still different from the valid row as the schema writes it, and from each other.
    const written = v.parse(lowered, sent)
    for (const column of ['name', 'code'] as const) expect(new Set([written[column], ...rows.map((row) => row[column])]).size, column).toBe(rows.length + 1)
  })

  it('a column no spelling fits keeps its value', async () => {
    const fixed = v.object({ kind: v.picklist(['a', 'b']) })
    expect(await variedRow(fixed, { kind: 'a' }, 1, ['kind'])).toEqual({ kind: 'a' })
  })
})
