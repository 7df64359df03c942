/**
 * `svc storage:link`: public/storage becomes a relative link to
 * storage/app/public (idempotent, --force to repoint, never over a real
 * folder), and the app loaded by the CLI serves its files under /storage/,
 * safely: no way out of the folder, uploaded HTML sandboxed, anything else
 * left to the routes.
 */
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONN_INFO } from '../../framework/index.ts'
import { importNatively } from '../../cli/project/import-file.ts'
import { loadApp, type LoadedApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { copyExampleApp, type AppCopy } from '../helpers/cli.ts'
import { runSvc, svcJson } from '../helpers/run-svc.ts'

let app: AppCopy
beforeAll(() => {
  app = copyExampleApp()
  writeFileSync(app.path('.env'), `JWT_SECRET=${'s'.repeat(40)}\n`)
})
afterAll(() => app?.remove())

describe('svc storage:link', () => {
  it('links public/storage to storage/app/public, once; --force repoints a link; a real folder is left alone', async () => {
    const first = await svcJson(['storage:link'], { cwd: app.dir })
    expect(first).toEqual({ link: app.path('public', 'storage'), target: app.path('storage', 'app', 'public'), status: 'created', url_prefix: '/storage/' })
    expect(lstatSync(app.path('public', 'storage')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(app.path('public', 'storage'))).toBe(join('..', 'storage', 'app', 'public')) // relative: the project can move
    expect((await svcJson(['storage:link'], { cwd: app.dir })).status).toBe('exists')
    expect((await runSvc(['storage:link'], { cwd: app.dir })).stdout).toBe('public/storage already links to storage/app/public: its files are served under /storage/\n')

    rmSync(app.path('public', 'storage'))
    symlinkSync('/tmp', app.path('public', 'storage'))
    const elsewhere = await runSvc(['storage:link'], { cwd: app.dir })
    expect(elsewhere.exitCode).toBe(1)
    expect(elsewhere.stderr).toContain('already links to /tmp')
    expect(elsewhere.stderr).toContain('svc storage:link --force replaces it')
    expect((await svcJson(['storage:link', '--force'], { cwd: app.dir })).status).toBe('replaced')

    rmSync(app.path('public', 'storage'))
    mkdirSync(app.path('public', 'storage'))
    const folder = await runSvc(['storage:link'], { cwd: app.dir })
    expect(folder.stderr).toContain(`error [E_LINK_EXISTS]: ${app.path('public', 'storage')} is a folder, not a link`)
    rmSync(app.path('public', 'storage'), { recursive: true })
    expect((await svcJson(['storage:link'], { cwd: app.dir })).status).toBe('created')
  })

  describe('serving /storage/', () => {
    let loaded: LoadedApp
    const get = (path: string, init: RequestInit = {}) => loaded.app.fetch(new Request(`http://localhost${path}`, init), { [CONN_INFO]: { remoteAddress: '127.0.0.1' } })

    beforeAll(async () => {
      await svcJson(['storage:link'], { cwd: app.dir })
      const files = app.path('storage', 'app', 'public')
      mkdirSync(join(files, 'avatars'), { recursive: true })
      writeFileSync(join(files, 'avatars', 'ada.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]))
      writeFileSync(join(files, 'note.html'), '<script>alert(1)</script>')
      writeFileSync(app.path('storage', 'secret.txt'), 'not public')
      symlinkSync(app.path('storage', 'secret.txt'), join(files, 'escape.txt'))
      loaded = await loadApp(findProject(app.dir, {}), { importFile: importNatively, trace: false })
    })
    afterAll(() => loaded?.close())

    it('serves a file with its type, length and date; HEAD and If-Modified-Since', async () => {
      const response = await get('/storage/avatars/ada.png')
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('image/png')
      expect(response.headers.get('content-length')).toBe('4')
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
      expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47])
      const head = await get('/storage/avatars/ada.png', { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(await head.text()).toBe('')
      const again = await get('/storage/avatars/ada.png', { headers: { 'if-modified-since': response.headers.get('last-modified')! } })
      expect(again.status).toBe(304)
    })

    it('uploaded HTML cannot run script on the API origin', async () => {
      const response = await get('/storage/note.html')
      expect(response.headers.get('content-security-policy')).toContain('sandbox')
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    })

    it('nothing outside the folder, and what it does not serve goes to the routes (404 envelope)', async () => {
      for (const path of ['/storage/..%2Fsecret.txt', '/storage/avatars/..%2F..%2F..%2Fsecret.txt', '/storage/escape.txt', '/storage/avatars', '/storage/missing.png', '/storage/%E0%A4%A', '/storage/avatars%5C..%5Cada.png']) {
        const response = await get(path)
        expect(response.status, path).toBe(404)
        expect(await response.json(), path).toMatchObject({ success: false, code: 404 })
      }
      expect((await get('/storage/avatars/ada.png', { method: 'POST' })).status).not.toBe(200)
    })
  })
})
