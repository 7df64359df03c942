/**
 * Translations: `t(key, params)` in the language the request asks for
 * (Accept-Language, with q-values and a fallback locale), and validation
 * messages through the same messages (`validation.<rule>`), app rules
 * (`defineRule`) included.
 */
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { createApp, createTranslator, defineModel, defineRule, defineRoutes, negotiateLocale, ValidationError, type Context } from 'svc'
import { createTestClient } from 'svc/testing'
import { testConfig } from '../helpers/app.ts'
import { openTestDatabase } from '../database/helpers.ts'

describe('negotiateLocale', () => {
  const available = ['en', 'fr', 'pt-BR']
  it.each([
    [null, 'en'],
    ['', 'en'],
    ['fr', 'fr'],
    ['FR-ca', 'fr'],
    ['de, fr;q=0.5, en;q=0.8', 'en'],
    ['de;q=1, fr;q=0.9', 'fr'],
    ['pt', 'pt-BR'],
    ['pt-br', 'pt-BR'],
    ['*', 'en'],
    ['fr;q=0, de', 'en'],
    ['fr;q=bogus', 'en'],
    ['!!!, fr', 'fr'],
    ['es', 'en'],
  ])('%j → %s', (header, expected) => {
    expect(negotiateLocale(header, available, 'en')).toBe(expected)
  })
})

const lang = createTranslator({
  fallback: 'en',
  locales: {
    en: {
      messages: { welcome: 'Welcome, {name}!', nested: { deep: 'Deep {n}' }, only_en: 'English only' },
    },
    fr: {
      messages: { welcome: 'Bienvenue, {name} !' },
      validation: {
        required: 'Le champ {field} est obligatoire.',
        max_length: 'Le champ {field} ne doit pas dépasser {requirement} caractères.',
        slug: 'Le champ {field} doit être un slug.',
        attributes: { display_name: "nom d'affichage" },
      },
    },
  },
})

const slug = defineRule({
  name: 'slug',
  message: 'The {field} field must be a slug.',
  check: (value: string) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(value),
})
const maxWords = defineRule({
  name: 'max_words',
  message: 'The {field} field must not have more than {requirement} words.',
  check: (value: string, max: number) => value.split(/\s+/).filter(Boolean).length <= max,
})

const Profile = v.object({
  display_name: v.pipe(v.string(), v.nonEmpty(), v.maxLength(5)),
  handle: v.pipe(v.string(), slug()),
  bio: v.optional(v.pipe(v.string(), maxWords(3))),
  motto: v.optional(v.pipe(v.string(), v.minLength(3, 'Say a bit more.'))),
})

function app() {
  return createApp({
    config: testConfig(),
    validationMessage: lang.validationMessage,
    api: defineRoutes((r) => {
      r.get('/hello', (c) => ({ text: lang.for(c)('messages.welcome', { name: 'Ada' }), locale: lang.localeOf(c) }))
      r.post('/profile', (c: Context<'/profile', { body: typeof Profile }>) => c.body()).body(Profile)
    }),
  })
}

describe('createTranslator', () => {
  it('t(key, params) answers in the request language, else the fallback, else the key', async () => {
    const client = createTestClient(app())
    expect((await client.get('/api/hello', { headers: { 'accept-language': 'fr-CH, en;q=0.5' } })).body.data).toEqual({ text: 'Bienvenue, Ada !', locale: 'fr' })
    expect((await client.get('/api/hello', { headers: { 'accept-language': 'de' } })).body.data).toEqual({ text: 'Welcome, Ada!', locale: 'en' })
    expect((await client.get('/api/hello')).body.data.locale).toBe('en')
    expect(lang.translate('fr', 'messages.only_en')).toBe('English only')
    expect(lang.translate('fr', 'messages.nested.deep', { n: 3 })).toBe('Deep 3')
    expect(lang.translate('fr', 'messages.missing')).toBe('messages.missing')
    expect(lang.translate('en', 'messages.welcome')).toBe('Welcome, {name}!')
    expect(lang.has('fr', 'messages.only_en')).toBe(true)
    expect(lang.has('fr', 'nothing.here')).toBe(false)
  })

  it('words validation errors in the request language: rules, app rules with parameters, field names', async () => {
    const client = createTestClient(app())
    const body = { display_name: 'Far too long', handle: 'Not A Slug', bio: 'one two three four' }
    const french = await client.post('/api/profile', { json: body, headers: { 'accept-language': 'fr' } })
    expect(french.status).toBe(422)
    expect(french.body.errors).toEqual({
      display_name: ["Le champ nom d'affichage ne doit pas dépasser 5 caractères."],
      handle: ['Le champ handle doit être un slug.'],
      // No French for this rule: the rule's own message.
      bio: ['The bio field must not have more than 3 words.'],
    })
    const english = await client.post('/api/profile', { json: { ...body, motto: 'ok' } })
    expect(english.body.errors).toEqual({
      display_name: ['The display name field must not be greater than 5 characters.'],
      handle: ['The handle field must be a slug.'],
      bio: ['The bio field must not have more than 3 words.'],
      // A message written in the schema is kept, in every language.
      motto: ['Say a bit more.'],
    })
    const fine = await client.post('/api/profile', { json: { display_name: 'Ada', handle: 'ada-l', bio: 'two words' } })
    expect(fine.status).toBe(200)
  })

  it('a missing field in French; the body as a whole keeps svc wording when the file has no `body` key', async () => {
    const client = createTestClient(app())
    const missing = await client.post('/api/profile', { json: { handle: 'x' }, headers: { 'accept-language': 'fr' } })
    expect(missing.body.errors).toEqual({ display_name: ["Le champ nom d'affichage est obligatoire."] })
    const notObject = await client.post('/api/profile', { json: 'text', headers: { 'accept-language': 'fr' } })
    expect(notObject.body.errors).toEqual({ body: ['The request body must be a JSON object.'] })
  })

  it('words each of svc\'s wordings by its own key: a list is never counted in characters, a name given twice is not a wrong type', async () => {
    const Order = v.object({ lines: v.pipe(v.array(v.string()), v.minLength(2)), code: v.pipe(v.string(), v.minLength(3)), qty: v.number() })
    const Query = v.object({ page: v.optional(v.string()) })
    const client = (validation: Record<string, string>) =>
      createTestClient(
        createApp({
          config: testConfig(),
          validationMessage: createTranslator({ fallback: 'en', locales: { fr: { validation } } }).validationMessage,
          api: defineRoutes((r) => r.post('/orders', (c) => c.body()).query(Query).body(Order)),
        }),
      )
    const send = (validation: Record<string, string>, json: unknown) =>
      client(validation).post('/api/orders?page=1&page=2', { json, headers: { 'accept-language': 'fr' } }).then((response) => response.body.errors)
    // A file as make:lang used to write it: one key per rule. Its "caractères" and "de type" are not used where svc's English says otherwise.
    const older = { min_length: 'Le champ {field} doit contenir au moins {requirement} caractères.', type: 'Le champ {field} doit être de type {requirement}.' }
    expect(await send(older, { lines: ['a'], code: 'ab', qty: 'x' })).toEqual({
      page: ['The page field must be given only once.'],
      lines: ['The lines field must have at least 2 items.'],
      code: ['Le champ code doit contenir au moins 3 caractères.'],
      qty: ['Le champ qty doit être de type number.'],
    })
    const french = {
      ...older,
      min_length_list: 'Le champ {field} doit contenir au moins {requirement} éléments.',
      type_number: 'Le champ {field} doit être un nombre.',
      given_once: 'Le champ {field} ne doit être donné qu\'une fois.',
      body: 'Le corps de la requête doit être un objet JSON.',
    }
    expect(await send(french, { lines: ['a'], code: 'ab', qty: 'x' })).toEqual({
      page: ["Le champ page ne doit être donné qu'une fois."],
      lines: ['Le champ lines doit contenir au moins 2 éléments.'],
      code: ['Le champ code doit contenir au moins 3 caractères.'],
      qty: ['Le champ qty doit être un nombre.'],
    })
    expect(await client(french).post('/api/orders', { json: [], headers: { 'accept-language': 'fr' } }).then((response) => response.body.errors)).toEqual({
      body: ['Le corps de la requête doit être un objet JSON.'],
    })
  })

  it("names a nested field by the attributes' key for it, written as in errors ('customer.name') or nested", async () => {
    const fr = createTranslator({
      fallback: 'en',
      locales: {
        fr: {
          validation: {
            required: 'Le champ {field} est obligatoire.',
            attributes: { 'customer.name': 'nom du client', customer: { address: { city: 'ville' } } },
          },
        },
      },
    })
    const Order = v.object({ customer: v.object({ name: v.string(), address: v.object({ city: v.string() }) }) })
    const client = createTestClient(createApp({ config: testConfig(), validationMessage: fr.validationMessage, api: defineRoutes((r) => r.post('/o', (c) => c.body()).body(Order)) }))
    const { body } = await client.post('/api/o', { json: { customer: { address: {} } }, headers: { 'accept-language': 'fr' } })
    expect(body.errors).toEqual({ 'customer.name': ['Le champ nom du client est obligatoire.'], 'customer.address.city': ['Le champ ville est obligatoire.'] })
  })

  it('the fallback locale may have no files of its own (svc default wording, keys)', () => {
    const only = createTranslator({ fallback: 'en', locales: { fr: { messages: { hi: 'Salut' } } } })
    expect(only.locales).toEqual(['fr', 'en'])
    expect(only.translate('en', 'messages.hi')).toBe('messages.hi')
    expect(only.localeOf(new Request('http://x', { headers: { 'accept-language': 'en-GB' } }))).toBe('en')
  })
})

describe("the 422's summary and a model's unique index, worded where the request is known", () => {
  const french = createTranslator({
    fallback: 'en',
    locales: {
      fr: {
        validation: {
          invalid_data: 'Les données fournies sont invalides.',
          required: 'Le champ {field} est obligatoire.',
          unique: 'La valeur de {field} est déjà prise.',
          attributes: { name: 'nom' },
        },
      },
    },
  })
  const Tag = defineModel<{ id: number; name: string }, { name: string }>({ name: 'Tag', table: 'tags', fillable: ['name'], timestamps: false })
  const TagInput = v.object({ name: v.string() })

  async function tagApp() {
    const test = await openTestDatabase()
    await test.db.execute('create table tags (id integer primary key autoincrement, name text not null unique)')
    const app = createApp({
      config: testConfig(),
      database: test.db,
      validationMessage: french.validationMessage,
      api: defineRoutes((r) => {
        r.post('/tags', async (c: Context<'/tags', { body: typeof TagInput }>) => Tag.create(c.db, await c.body())).body(TagInput)
        r.post('/custom', () => {
          throw new ValidationError({ name: ['Mine.'] }, 'My own summary.')
        })
      }),
    })
    return { client: createTestClient(app), close: () => test.close() }
  }

  it('in the language the request asks for: validation.invalid_data above the fields, validation.unique for the duplicate', async () => {
    const { client, close } = await tagApp()
    try {
      const fr = { 'accept-language': 'fr' }
      expect((await client.post('/api/tags', { json: { name: 'news' }, headers: fr })).status).toBe(200)
      const duplicate = await client.post('/api/tags', { json: { name: 'news' }, headers: fr })
      expect(duplicate.body).toEqual({ success: false, error: 'Les données fournies sont invalides.', code: 422, errors: { name: ['La valeur de nom est déjà prise.'] } })
      const missing = await client.post('/api/tags', { json: {}, headers: fr })
      expect(missing.body).toMatchObject({ error: 'Les données fournies sont invalides.', errors: { name: ['Le champ nom est obligatoire.'] } })
      // English (the fallback, without files of its own) is svc's wording, as before.
      const english = await client.post('/api/tags', { json: { name: 'news' } })
      expect(english.body).toEqual({ success: false, error: 'The given data was invalid.', code: 422, errors: { name: ['The name has already been taken.'] } })
      // What the thrower wrote itself is kept.
      expect((await client.post('/api/custom', { headers: fr })).body).toMatchObject({ error: 'My own summary.', errors: { name: ['Mine.'] } })
    } finally {
      await close()
    }
  })
})

describe('defineRule', () => {
  it('validates inside a schema, with svc wording and no translator', async () => {
    expect(v.safeParse(v.pipe(v.string(), slug()), 'a-b').success).toBe(true)
    const client = createTestClient(
      createApp({ config: testConfig(), api: defineRoutes((r) => r.post('/p', (c) => c.body()).body(v.object({ handle: v.pipe(v.string(), slug()) }))) }),
    )
    const response = await client.post('/api/p', { json: { handle: 'No' } })
    expect(response.body.errors).toEqual({ handle: ['The handle field must be a slug.'] })
  })

  it('refuses a name that cannot be a translation key', () => {
    expect(() => defineRule({ name: 'Bad Name', message: 'x', check: () => true })).toThrow(/lower-case/)
  })
})
