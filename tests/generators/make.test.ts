/**
 * Every `make:*` generator end to end, in one copy of the example app:
 * the files each writes (and skips the second time), `--force`, `--json`
 * (checked against the contract), the app's stubs, refusals that write
 * nothing; then what has behaviour runs: a rule validates inside a schema,
 * an observer hears its model's writes, listeners hear `emit`, a lang file
 * words `t()` and validation messages by Accept-Language, the middleware
 * wraps its route, the seeder fills its table through the factory, the
 * migration migrates; the project type-checks and the test make:test wrote
 * passes.
 */
import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MakeJson } from '../../cli/contract/index.ts'
import { projectTestApp, type ProjectTestApp } from '../../cli/testing/project-app.ts'
import type { AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'
import { appFiles, generatorApp, projectTests, typecheck } from './helpers.ts'

let app: AppCopy
const made = new Map<string, MakeJson>()
const make = async (...args: string[]) => {
  const result = await svcJson<MakeJson>(args, { cwd: app.dir })
  made.set(args.join(' '), result)
  return result
}

/** Each generator, with what it writes (migration timestamps as <ts>). */
const GENERATORS: Array<[string[], string[]]> = [
  [['make:model', 'Widget', '--fields=name:string,size:integer,fragile:boolean,note:text?', '--migration'], ['app/models/widget.ts', 'database/migrations/<ts>_create_widgets_table.ts']],
  [['make:migration', 'add_color_to_widgets_table', '--fields=color:string'], ['database/migrations/<ts>_add_color_to_widgets_table.ts']],
  [['make:controller', 'Widget', '--resource'], ['app/controllers/widgets.ts', 'app/requests/widget-request.ts', 'app/resources/widget-resource.ts']],
  [['make:controller', 'Admin/ReportController'], ['app/controllers/admin/reports.ts']],
  [['make:repository', 'Widget'], ['app/repositories/widget-repository.ts']],
  [['make:service', 'Widget'], ['app/services/widget-service.ts']],
  [['make:service', 'Billing'], ['app/services/billing-service.ts']],
  [['make:resource', 'Invoice', '--fields=total:number'], ['app/resources/invoice-resource.ts']],
  [['make:request', 'StoreOrder', '--fields=quantity:integer,note:text?'], ['app/requests/store-order-request.ts']],
  [['make:middleware', 'RequestTimer'], ['app/middleware/request-timer.ts']],
  [['make:observer', 'WidgetObserver'], ['app/observers/widget-observer.ts']],
  [['make:rule', 'Slug'], ['app/rules/slug.ts']],
  [['make:event', 'OrderShipped'], ['app/events/order-shipped.ts']],
  [['make:listener', 'SendShipmentMail', '--event=OrderShipped'], ['app/listeners/send-shipment-mail.ts']],
  [['make:listener', 'Warehouse/NotifyWarehouse', '--event=OrderShipped'], ['app/listeners/warehouse/notify-warehouse.ts']],
  [['make:listener', 'LogRefund', '--event=RefundIssued'], ['app/listeners/log-refund.ts', 'app/events/refund-issued.ts']],
  // An event of the app's own making, without the id make:event gives (the blog's PostCreated(postId, authorId), as docs/events.md shows it): the listener compiles too.
  [['make:listener', 'CountPosts', '--event=PostCreated'], ['app/listeners/count-posts.ts']],
  [['make:job', 'SendDigestJob'], ['app/jobs/send-digest.ts']],
  [['make:mail', 'Welcome'], ['app/mail/welcome.ts']],
  [['make:test', 'Checkout'], ['tests/checkout.test.ts']],
  // A path as people point at the file: not tests/tests/refunds.test.ts.
  [['make:test', 'tests/refunds'], ['tests/refunds.test.ts']],
  [['make:test', 'tests/admin/audit.test.ts'], ['tests/admin/audit.test.ts']],
  [['make:factory', 'Widget'], ['database/factories/widget-factory.ts']],
  [['make:seeder', 'Widget', '--count=7'], ['database/seeders/widgets.ts']],
  [['make:lang', 'fr', 'validation'], ['lang/fr/validation.ts']],
  [['make:lang', 'fr', 'messages'], ['lang/fr/messages.ts']],
  [['make:lang', 'en', 'messages'], ['lang/en/messages.ts']],
]

beforeAll(async () => {
  app = generatorApp()
  // The app's own stub for requests: every request schema starts with its comment.
  app.write('stubs/request.ts', `import type { Stub } from 'svc/generators'\n\nconst request: Stub<'request'> = (context, builtin) => {\n  const file = builtin(context)\n  return { ...file, contents: \`// Reviewed by the API team.\\n\${file.contents}\` }\n}\nexport default request\n`)
  for (const [args] of GENERATORS) await make(...args)
}, 120_000)
afterAll(() => app?.remove())

const stamp = (path: string) => path.replace(/\d{14}_/, '<ts>_')

describe('each generator', () => {
  it.each(GENERATORS.map(([args, files]) => [args.join(' '), files] as const))('%s writes %j', (command, files) => {
    expect(made.get(command)!.written.map(stamp)).toEqual(files)
    for (const file of made.get(command)!.written) expect(existsSync(app.path(file)), file).toBe(true)
  })

  it('wires what it wrote: observer into its model, listeners into the list, lang files, the kernel', () => {
    expect(made.get('make:observer WidgetObserver')!.edits).toEqual([{ path: 'app/models/widget.ts', what: 'Widget.observe(widgetObserver)', status: 'changed' }])
    expect(app.read('app', 'models', 'widget.ts')).toContain("import { widgetObserver } from '../observers/widget-observer.ts'")
    // The blog has its own listener (mail-author): the new ones join its list.
    expect(made.get('make:listener SendShipmentMail --event=OrderShipped')!.edits[0]).toMatchObject({ path: 'app/listeners/index.ts', status: 'changed' })
    expect(app.read('app', 'listeners', 'index.ts')).toContain('export default [mailAuthor, sendShipmentMail, notifyWarehouse, logRefund, countPosts] satisfies Listener[]')
    expect(made.get('make:lang fr validation')!.edits.map((edit) => [edit.path, edit.status])).toEqual([
      ['lang/index.ts', 'created'],
      ['app/kernel.ts', 'created'],
    ])
    expect(made.get('make:lang en messages')!.edits.map((edit) => edit.status)).toEqual(['changed', 'unchanged'])
    expect(app.read('lang', 'index.ts')).toContain('fr: { validation: frValidation, messages: frMessages },\n    en: { messages: enMessages },')
  })

  it('takes a model’s fields from the model when --fields is not given', () => {
    // The model's type says number; its mark (`size: number // integer`) says integer, as --fields did.
    expect(app.read('app', 'models', 'widget.ts')).toContain('  size: number // integer\n')
    expect(app.read('app', 'requests', 'widget-request.ts')).toContain('  size: v.pipe(v.number(), v.integer(), v.minValue(Number.MIN_SAFE_INTEGER), v.maxValue(Number.MAX_SAFE_INTEGER)),')
    // And `note: string | null // text` a text: its rules, not a one-line string's.
    expect(app.read('app', 'requests', 'widget-request.ts')).toContain('  note: v.optional(v.nullable(v.pipe(v.string(), withoutNul(), maxChars(65535))), null),')
    expect(app.read('app', 'resources', 'widget-resource.ts')).toContain('  fragile: v.boolean(),')
    expect(app.read('database', 'factories', 'widget-factory.ts')).toContain('  name: `Widget ${n}`,')
    expect(app.read('app', 'services', 'widget-service.ts')).toContain('new WidgetRepository(db)')
    expect(app.read('app', 'services', 'billing-service.ts')).not.toContain('Repository')
    expect(app.read('database', 'seeders', 'widgets.ts')).toContain('widgetFactory.createMany(db, 7)')
  })

  it('uses the app’s stub (stubs/<kind>.ts) instead of the built-in template', () => {
    expect(app.read('app', 'requests', 'store-order-request.ts').startsWith('// Reviewed by the API team.\n/** What a client sends.')).toBe(true)
    expect(app.read('app', 'requests', 'widget-request.ts').startsWith('// Reviewed by the API team.')).toBe(true)
  })

  it('a second run skips every file, --force rewrites one that differs', async () => {
    const again = await svcJson<MakeJson>(['make:model', 'Widget', '--fields=name:string,size:integer,fragile:boolean,note:text?', '--migration'], { cwd: app.dir })
    expect(again.written).toEqual([])
    expect(again.skipped.map((file) => [stamp(file.path), file.identical])).toEqual([
      // The model now registers its observer.
      ['app/models/widget.ts', false],
      ['database/migrations/<ts>_create_widgets_table.ts', true],
    ])
    app.write('app/rules/slug.ts', '// emptied\n')
    const human = await runSvc(['make:rule', 'Slug'], { cwd: app.dir })
    expect(human.stdout).toBe('Exists  app/rules/slug.ts (differs; --force overwrites it)\n')
    const forced = await runSvc(['make:rule', 'Slug', '--force'], { cwd: app.dir })
    expect(forced.stdout).toBe('Overwrote app/rules/slug.ts\n')
    expect(forced.stderr).toContain('Next: use it in a schema')
    expect(app.read('app', 'rules', 'slug.ts')).toContain("name: 'slug'")
  })

  it('checks everything before writing anything: a failing stub or a bad name leaves the app as it was', async () => {
    app.write('stubs/resource.ts', `export default () => ({ path: '../../outside.ts', contents: 'x' })\n`)
    const files = appFiles(app)
    const refused = await runSvc(['make:controller', 'Gadget', '--resource', '--fields=name:string'], { cwd: app.dir })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('E_BAD_STUB')
    expect(refused.stderr).toContain('outside the app')
    app.write('stubs/resource.ts', `export const nothing = 1\n`)
    expect((await runSvc(['make:resource', 'Gadget'], { cwd: app.dir })).stderr).toContain('does not export a template function')
    for (const [args, code] of [
      [['make:model', 'Promise'], 'E_BAD_NAME'],
      [['make:lang', 'French', 'validation'], 'E_BAD_NAME'],
      [['make:listener', 'Orphan'], 'E_BAD_ARGUMENTS'],
      [['make:observer', 'Ghost'], 'E_NO_MODEL'],
      [['make:model', 'Gadget', '--fields=price:money'], 'E_BAD_FIELDS'],
      [['make:modle', 'Gadget'], 'E_UNKNOWN_COMMAND'],
    ] as const) {
      const result = await runSvc([...args], { cwd: app.dir })
      expect(result.exitCode, args.join(' ')).toBe(1)
      expect(result.stderr, args.join(' ')).toContain(code)
    }
    app.write('stubs/resource.ts', "import type { Stub } from 'svc/generators'\nconst resource: Stub<'resource'> = (context, builtin) => builtin(context)\nexport default resource\n")
    const written = appFiles(app)
    written.delete('stubs/resource.ts')
    files.delete('stubs/resource.ts')
    expect(written).toEqual(files)
  })
})

describe('what the generated code does', () => {
  let t: ProjectTestApp
  const seen: string[] = []

  beforeAll(async () => {
    // Hooks and listeners that report to the test (the generated ones log, or do nothing yet).
    const observer = app.read('app', 'observers', 'widget-observer.ts')
    app.write('app/observers/widget-observer.ts', observer.replace(/async (created|updated|deleted)\((\w+), db\) \{[^}]*\}/g, "async $1($2, db) {\n    ;(globalThis as { seen?: string[] }).seen?.push(`$1 ${$2.name}`)\n  }"))
    for (const file of ['send-shipment-mail.ts', 'warehouse/notify-warehouse.ts']) {
      const listener = app.read('app', 'listeners', file)
      app.write(`app/listeners/${file}`, listener.replace(/console\.info\((.*)\)/, ";(globalThis as { seen?: string[] }).seen?.push(`" + file + " ${event.id}`)"))
    }
    app.write('app/jobs/send-digest.ts', app.read('app', 'jobs', 'send-digest.ts').replace(/console\.info\((.*)\)/, ";(globalThis as { seen?: string[] }).seen?.push(`digest ${payload.id} attempt ${job.attempt}`)"))
    app.write('lang/fr/validation.ts', app.read('lang', 'fr', 'validation.ts').replace("required: 'The {field} field is required.'", "required: 'Le champ {field} est obligatoire.',\n  slug: 'Le champ {field} doit être un slug.'"))
    app.write('lang/fr/messages.ts', app.read('lang', 'fr', 'messages.ts').replace("'Welcome, {name}!'", "'Bienvenue, {name} !'"))
    app.write(
      'routes/web.ts',
      `import * as v from 'valibot'
import { defineRoutes, emit } from 'svc'
import { requestTimer } from '../app/middleware/request-timer.ts'
import { Widget } from '../app/models/widget.ts'
import { OrderShipped } from '../app/events/order-shipped.ts'
import { slug } from '../app/rules/slug.ts'
import { sendDigest } from '../app/jobs/send-digest.ts'
import { welcomeMail } from '../app/mail/welcome.ts'
import { lang } from '../lang/index.ts'

const Handle = v.object({ handle: v.pipe(v.string(), slug()) })

export default defineRoutes((r) => {
  r.post('/handles', (c) => c.body()).body(Handle)
  r.get('/timed', () => ({ ok: true })).middleware(requestTimer())
  r.post('/orders/{id}/ship', async (c) => {
    await emit(new OrderShipped(Number(c.params.id)))
    return { shipped: true }
  })
  r.post('/widgets', async (c) => Widget.create(c.db, { name: 'Cog', size: 3, fragile: true }))
  r.put('/widgets/{id}', async (c) => Widget.update(c.db, Number(c.params.id), { name: 'Gear' }))
  r.delete('/widgets/{id}', async (c) => Widget.delete(c.db, Number(c.params.id)))
  r.get('/welcome', (c) => ({ text: lang.for(c)('messages.welcome', { name: 'Ada' }) }))
  r.post('/digests', async (c) => c.queue.dispatch(sendDigest, { id: 7 }))
  r.get('/welcome-mail', () => welcomeMail.to('ada@example.com', { name: 'Ada <3' }))
})
`,
    )
    ;(globalThis as { seen?: string[] }).seen = seen
    t = await projectTestApp({ root: app.dir })
  }, 60_000)
  afterAll(async () => {
    delete (globalThis as { seen?: string[] }).seen
    await t?.close()
  })

  it('the rule validates inside a schema, in the request’s language once translated', async () => {
    const english = await t.client.post('/handles', { json: { handle: ' padded ' } })
    expect(english.status).toBe(422)
    expect(english.body.errors).toEqual({ handle: ['The handle field must be slug.'] })
    const french = await t.client.post('/handles', { json: { handle: ' padded ' }, headers: { 'accept-language': 'fr-FR,fr;q=0.9' } })
    expect(french.body.errors).toEqual({ handle: ['Le champ handle doit être un slug.'] })
    const missing = await t.client.post('/handles', { json: {}, headers: { 'accept-language': 'fr' } })
    expect(missing.body.errors).toEqual({ handle: ['Le champ handle est obligatoire.'] })
    expect((await t.client.post('/handles', { json: { handle: 'fine' } })).status).toBe(200)
  })

  it('t(key, params) answers in the request’s language, else the fallback', async () => {
    expect((await t.client.get('/welcome', { headers: { 'accept-language': 'fr' } })).body.data.text).toBe('Bienvenue, Ada !')
    expect((await t.client.get('/welcome', { headers: { 'accept-language': 'de' } })).body.data.text).toBe('Welcome, Ada!')
  })

  it('the observer hears its model’s create, update and delete', async () => {
    seen.length = 0
    const created = await t.client.post('/widgets')
    expect(created.body.data).toMatchObject({ name: 'Cog', size: 3, fragile: true, note: null, color: null })
    await t.client.put(`/widgets/${created.body.data.id}`)
    await t.client.delete(`/widgets/${created.body.data.id}`)
    expect(seen).toEqual(['created Cog', 'updated Gear', 'deleted Gear'])
  })

  it('emit reaches the listeners registered from app/listeners/index.ts, in order', async () => {
    seen.length = 0
    expect((await t.client.post('/orders/42/ship')).body.data).toEqual({ shipped: true })
    expect(seen).toEqual(['send-shipment-mail.ts 42', 'warehouse/notify-warehouse.ts 42'])
  })

  it('the job runs when dispatched (the test app queues with the sync driver); the mail renders text and escaped HTML', async () => {
    seen.length = 0
    const dispatched = await t.client.post('/digests')
    expect(dispatched.body.data).toMatchObject({ name: 'send-digest', queue: 'default' })
    expect(seen).toEqual(['digest 7 attempt 1'])
    const mail = (await t.client.get('/welcome-mail')).body.data
    expect(mail).toMatchObject({ to: 'ada@example.com', subject: 'Welcome', text: 'Hello Ada <3,\n\n...' })
    expect(mail.html).toContain('<p>Hello Ada &lt;3,</p>')
  })

  it('the middleware wraps its route', async () => {
    const response = await t.client.get('/timed')
    expect(response.status).toBe(200)
    expect(response.headers.get('x-request-timer')).toMatch(/^\d+\.\dms$/)
  })

  it('the seeder fills its table through the factory; the migrations migrate', async () => {
    const seeded = await svcJson(['migrate:fresh', '--seed'], { cwd: app.dir })
    expect(seeded.ran.some((name: string) => name.endsWith('_add_color_to_widgets_table'))).toBe(true)
    expect(seeded.seeded).toContain('widgets')
    const seededApp = await projectTestApp({ root: app.dir, seed: true })
    try {
      const rows = await seededApp.db.all('select name, size, fragile from widgets order by id limit 2')
      expect(rows.map((row) => ({ ...row }))).toEqual([
        { name: 'Widget 1', size: 1, fragile: 1 },
        { name: 'Widget 2', size: 2, fragile: 0 },
      ])
      expect((await seededApp.db.first<{ total: number }>('select count(*) as total from widgets'))!.total).toBe(7)
    } finally {
      await seededApp.close()
    }
  })
})

describe('what the generators wrote, as a project', () => {
  it('type-checks (tsc --noEmit)', async () => {
    const result = await typecheck(app)
    expect(result.output).toBe('')
    expect(result.code).toBe(0)
  }, 180_000)

  it('the test make:test wrote passes', async () => {
    const result = await projectTests(app, ['tests/checkout.test.ts'])
    expect(result.output).toMatch(/Tests\s+1 passed/)
    expect(result.code).toBe(0)
  }, 180_000)
})
