import { changedValue, exampleValue, isSearchable, parentOf, sqlName, wrongValue, type Field } from '../fields.ts'
import { appPaths, identifiers, importPath } from '../paths.ts'
import { defineTemplate } from '../template.ts'

export interface TestOptions {
  /** make:crud's test of the resource's endpoints; else a test to start from. */
  resource?: {
    fields: readonly Field[]
    /** The collection's full path: `/api/v1/products`. */
    basePath: string
    /** Whether the routes require a token (`auth`). */
    auth: boolean
    /** make:crud --owned: each row is its creator's; the tests show another user cannot see or change it. */
    owned?: boolean
  }
}

declare module '../template.ts' {
  interface TemplateOptions {
    test: TestOptions
  }
}

/** `tests/<name>.test.ts`: a vitest file that builds the app in process (`projectTestApp`, a fresh database). */
export default defineTemplate('test', ({ names, options }) => {
  // `t?.close()`: when beforeAll fails, vitest reports that failure, not a TypeError from afterAll on top of it.
  const header = `import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectTestApp, type ProjectTestApp } from 'svc/testing/project'
`
  if (options.resource === undefined) {
    return {
      path: appPaths.test(names),
      contents: `/** ${names.base.words}: run with \`npm test\` (the app in process, on a fresh database with every migration). */
${header}
let t: ProjectTestApp

beforeAll(async () => {
  t = await projectTestApp()
})
afterAll(() => t?.close())

describe('${names.base.words}', () => {
  it('answers the liveness probe', async () => {
    const response = await t.client.get('/health/live')
    expect(response.status).toBe(200)
    expect(response.body.success).toBe(true)
  })
})
`,
    }
  }
  const { fields, basePath, auth } = options.resource
  const owned = options.resource.owned === true && auth
  const label = names.label
  const token = auth ? ', token' : ''
  const tokenOnly = auth ? ', { token }' : ''
  // Changed and refused in the tests below: a column of the row's own where there is one (another parent would need storing first).
  const first = fields.find((field) => field.type !== 'references') ?? fields[0]!
  const references = fields.filter((field) => field.type === 'references')
  const testPath = appPaths.resourceTest(names)
  const parentImports = [...new Set(references.map((field) => `import { ${identifiers(parentOf(field)).factory} } from '${importPath(testPath, appPaths.factory(parentOf(field)))}'\n`))].join('')
  // A foreign key needs a row of the parent: one is stored through its factory before the first request.
  const parents = references.map((field) => `\n  valid.${field.name} = (await ${identifiers(parentOf(field)).factory}.create(t.db)).id`).join('')
  // The rows the tests keep differ wherever a unique index could be (the migration is the app's to add one to: docs/generators.md),
  // so none is refused: the list's (n = i), a parent's filter's and the search's (n past the list's 1 to 3). svc's variedRow
  // picks, for each column, a spelling the request schema accepts: appending ` 2` broke once the app added v.url() or v.regex.
  // `set` gives some columns their own values (`{ name: code }`), which are then not varied.
  const requestSchema = identifiers(names).request
  // The columns variedRow changes; the update's too (its fixed `Product renamed` was refused by a v.regex as well).
  const isVaried = (field: Field) => isSearchable(field) || field.type === 'integer' || field.type === 'number'
  // What the app stores and answers is the request schema's output (schemaOutput): a schema that trims or lower-cases
  // a field (v.trim(), v.toLowerCase()) answers `ada`, not the `Ada` sent, and the tests compared with what they sent.
  const variedImports = `import { ${fields.some(isVaried) ? 'schemaOutput, variedRow' : 'schemaOutput'} } from 'svc/testing'\nimport { ${requestSchema} } from '${importPath(testPath, appPaths.request(names))}'\n`
  const variedRow = (n: string, set: Record<string, string> = {}) => {
    const varied = fields.filter((field) => !(field.name in set) && isVaried(field))
    const base = varied.length === 0 ? 'valid' : `await variedRow(${requestSchema}, valid, ${n}, [${varied.map((field) => `'${field.name}'`).join(', ')}])`
    const own = Object.entries(set).map(([name, code]) => `${name}: ${code}`)
    return own.length === 0 ? base : `{ ...${varied.length === 0 ? base : `(${base})`}, ${own.join(', ')} }`
  }
  const missingParent = references
    .map(
      (field, k) => `

  it('answers 409 for a ${field.name} that names no ${parentOf(field).singular.words}', async () => {
    const response = await t.client.post(base, { json: { ...valid, ${field.name}: 999999 }${token} })
    expect(response.status, JSON.stringify(response.body)).toBe(409)
    expect(response.body.error).toContain('${field.name} 999999 names no row of ${parentOf(field).table}')
  })

  it('lists the ${names.plural.words} of one ${parentOf(field).singular.words} (?${field.name}=)', async () => {
    const other = (await ${identifiers(parentOf(field)).factory}.create(t.db)).id
    const created = await t.client.post(base, { json: ${variedRow(String(10 + k), { [field.name]: 'other' })}${token} })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const listed = await t.client.get(\`\${base}?${field.name}=\${other}\`${tokenOnly})
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((row: { id: number }) => row.id)).toEqual([created.body.data.id])
    expect((await t.client.get(\`\${base}?${field.name}=abc\`${tokenOnly})).status).toBe(422)
  })`,
    )
    .join('')
  // The search looks for the text of a row of its own (a required column where there is one): whatever the schema
  // accepts there, no other row's holds it. A fixed needle (`Needle in a haystack`) was refused by a v.url() or v.maxLength.
  const searchable = fields.find((field) => isSearchable(field) && !field.optional) ?? fields.find(isSearchable)
  const valid = `{ ${fields.map((field) => `${field.name}: ${exampleValue(field, label)}`).join(', ')} }`
  const row = variedRow('i')
  const search = searchable === undefined
    ? ''
    : `

  it('searches (${searchable.name}) and sorts', async () => {
    const row = ${variedRow('9')}
    const created = await t.client.post(base, { json: row${token} })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const needle = String(row.${searchable.name})
    const found = await t.client.get(\`\${base}?search=\${encodeURIComponent(needle)}&sort=-id\`${tokenOnly})
    expect(found.status).toBe(200)
    expect(found.body.data.map((listed: { id: number }) => listed.id)).toContain(created.body.data.id)
    for (const listed of found.body.data) expect(String(listed.${searchable.name}).toLowerCase()).toContain(needle.toLowerCase())
    expect((await t.client.get(\`\${base}?sort=nope\`${tokenOnly})).status).toBe(422)
  })`
  const unauthorised = auth
    ? `

  it('refuses a request without a token (401)', async () => {
    expect((await t.client.get(base)).status).toBe(401)
    expect((await t.client.post(base, { json: valid })).status).toBe(401)
  })`
    : ''
  const changes = isVaried(first) ? `await variedRow(${requestSchema}, valid, 5, ['${first.name}'])` : `{ ...valid, ${first.name}: ${changedValue(first, label)} }`
  const ownership = owned ? ownershipTests(names.singular.words, label, sqlName(names.table), changes) : ''
  return {
    path: testPath,
    contents: `/** The ${names.plural.words} endpoints end to end, in process, on a fresh database: run with \`npm test\`. */
${header}${variedImports}${parentImports}
const base = '${basePath}'
const valid = ${valid}

let t: ProjectTestApp${auth ? '\nlet token: string' : ''}${owned ? '\n/** The id of the user of `token`, who owns what they create. */\nlet owner: number' : ''}

beforeAll(async () => {
  t = await projectTestApp()${auth ? "\n  token = await t.tokenFor({ role: 'user' })" : ''}${owned ? "\n  owner = (await t.client.get('/api/auth/me', { token })).body.data.id" : ''}${parents}
})
afterAll(() => t?.close())

describe('${names.plural.words}', () => {
  it('creates (201), shows, updates and deletes (204) a ${names.singular.words}', async () => {
    const created = await t.client.post(base, { json: valid${token} })
    // The body as the message: a 409 or 422 then says why.
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({ success: true, data: await schemaOutput(${requestSchema}, valid) })
    const id = created.body.data.id

    const shown = await t.client.get(\`\${base}/\${id}\`${tokenOnly})
    expect(shown.body.data).toEqual(created.body.data)

    const changes = ${changes}
    const updated = await t.client.put(\`\${base}/\${id}\`, { json: changes${token} })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.data.${first.name}).toEqual((await schemaOutput(${requestSchema}, changes)).${first.name})

    const deleted = await t.client.delete(\`\${base}/\${id}\`${tokenOnly})
    expect(deleted.status).toBe(204)
    expect((await t.client.get(\`\${base}/\${id}\`${tokenOnly})).status).toBe(404)
  })

  it('answers 404 in the envelope for a ${names.singular.words} that does not exist', async () => {
    const missing = { success: false, error: '${names.label} not found', code: 404 }
    expect((await t.client.get(\`\${base}/999999\`${tokenOnly})).body).toEqual(missing)
    expect((await t.client.put(\`\${base}/999999\`, { json: valid${token} })).body).toEqual(missing)
    expect((await t.client.delete(\`\${base}/999999\`${tokenOnly})).body).toEqual(missing)
  })

  it('answers 422 naming each invalid field', async () => {
    const response = await t.client.post(base, { json: { ...valid, ${first.name}: ${wrongValue(first)} }${token} })
    expect(response.status).toBe(422)
    expect(Object.keys(response.body.errors)).toEqual(['${first.name}'])
  })

  it('lists one page at a time, with meta', async () => {
    for (let i = 1; i <= 3; i++) {
      const created = await t.client.post(base, { json: ${row}${token} })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
    }
    const page = await t.client.get(\`\${base}?per_page=2&page=2\`${tokenOnly})
    expect(page.status).toBe(200)
    const { total } = page.body.meta
    expect(page.body.meta).toEqual({ page: 2, per_page: 2, total, last_page: Math.ceil(total / 2) })
    expect(page.body.data.length).toBe(Math.min(2, total - 2))
    expect((await t.client.get(\`\${base}?per_page=101\`${tokenOnly})).status).toBe(422)
    expect((await t.client.get(\`\${base}?page=0\`${tokenOnly})).status).toBe(422)
  })${missingParent}${search}${unauthorised}${ownership}
})
`,
  }
})

/** make:crud --owned: the owner comes from the token; another user gets 404 and changes nothing; an admin gets every row. */
function ownershipTests(singular: string, label: string, table: string, changes: string): string {
  const select = `'select * from ${table} where "id" = ?'`
  return `

  it('takes the owner from the token: a user_id in the body is dropped', async () => {
    const created = await t.client.post(base, { json: { ...valid, user_id: owner + 1000 }, token })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.data.user_id).toBe(owner)
  })

  it("answers another user 404 for the owner's ${singular}, as for a missing one, lists none, and changes nothing", async () => {
    const created = await t.client.post(base, { json: valid, token })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = created.body.data.id
    const stored = await t.db.first(${select}, [id])
    const stranger = await t.tokenFor({ email: 'stranger@example.test' })
    const missing = { success: false, error: '${label} not found', code: 404 }
    const changes = ${changes}
    expect((await t.client.get(\`\${base}/\${id}\`, { token: stranger })).body).toEqual(missing)
    expect((await t.client.put(\`\${base}/\${id}\`, { json: changes, token: stranger })).body).toEqual(missing)
    expect((await t.client.delete(\`\${base}/\${id}\`, { token: stranger })).body).toEqual(missing)
    expect((await t.client.get(base, { token: stranger })).body.data).toEqual([])
    expect(await t.db.first(${select}, [id])).toEqual(stored)
  })

  it("lets an admin list, change and delete another user's ${singular}; its owner stays", async () => {
    const admin = await t.tokenFor({ role: 'admin' })
    const created = await t.client.post(base, { json: valid, token })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = created.body.data.id
    const listed = await t.client.get(\`\${base}?sort=-id\`, { token: admin })
    expect(listed.body.data.map((row: { id: number }) => row.id)).toContain(id)
    const updated = await t.client.put(\`\${base}/\${id}\`, { json: ${changes}, token: admin })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.data.user_id).toBe(owner)
    expect((await t.client.delete(\`\${base}/\${id}\`, { token: admin })).status).toBe(204)
  })`
}
