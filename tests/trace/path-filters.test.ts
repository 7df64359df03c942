/**
 * `--path` and `--ignore` as route patterns and shell globs read them: `*`
 * is one path segment, `**` any number of them; the query string is stored
 * apart and never matched (a pattern written with one is refused). Read
 * through the commands' JSON, over a project store filled with records.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTraceStore } from 'svc/node'
import type { TraceListJson } from '../../cli/contract/traces.ts'
import { tempDir } from '../helpers/app.ts'
import { runSvc, svcJson, svcJsonError } from '../helpers/run-svc.ts'
import { traceRecord } from './helpers.ts'

const PATHS = ['/api/v1/posts', '/api/v1/x/posts', '/api/posts', '/api/v1/posts/7', '/api/v1/posts/7/comments', '/health/live', '/health/db/ping', '/search']

let project: ReturnType<typeof tempDir>

beforeAll(async () => {
  project = tempDir('svc-path-filters-')
  writeFileSync(join(project.path, 'package.json'), JSON.stringify({ name: 'path-filters', private: true, type: 'module', dependencies: { svc: '*' } }))
  const store = await openTraceStore({ storageDir: join(project.path, 'storage'), projectDir: project.path })
  try {
    await store.writeRecords(PATHS.map((path, n) => traceRecord(n, { path, route: null, query: path === '/search' ? 'q=x' : '' })))
  } finally {
    store.close()
  }
})
afterAll(() => project?.remove())

const paths = async (args: string[]) => (await svcJson<TraceListJson>(['trace:list', '--limit=100', ...args], { cwd: project.path })).traces.map((trace) => trace.path).sort()

describe('--path globs', () => {
  it('match one segment with *', async () => {
    expect(await paths(['--path', '/api/*/posts'])).toEqual(['/api/v1/posts'])
    expect(await paths(['--path', '/api/v1/posts/*'])).toEqual(['/api/v1/posts/7'])
    expect(await paths(['--path', '/api/v?/posts'])).toEqual(['/api/v1/posts'])
  })

  it('match any number of segments with **, /**/ also none', async () => {
    expect(await paths(['--path', '/api/**/posts'])).toEqual(['/api/posts', '/api/v1/posts', '/api/v1/x/posts'])
    expect(await paths(['--path', '/api/v1/posts/**'])).toEqual(['/api/v1/posts/7', '/api/v1/posts/7/comments'])
  })

  it('stay substrings without a glob character', async () => {
    expect(await paths(['--path', 'posts/7'])).toEqual(['/api/v1/posts/7', '/api/v1/posts/7/comments'])
  })

  it('apply the same rules to --ignore, and to every command that shares the filters', async () => {
    expect(await paths(['--ignore', '/api/**', '--ignore', '/health/*'])).toEqual(['/health/db/ping', '/search'])
    const slow = await svcJson<{ traces: Array<{ path: string }> }>(['log:slow', '--min=0', '--path', '/api/*/posts'], { cwd: project.path })
    expect(slow.traces.map((trace) => trace.path)).toEqual(['/api/v1/posts'])
    const exported = await svcJson<{ traces: Array<{ path: string }> }>(['log:export', '--path', '/health/*'], { cwd: project.path })
    expect(exported.traces.map((trace) => trace.path)).toEqual(['/health/live'])
  })

  it('refuse a pattern written with a query string, which would match nothing', async () => {
    for (const [option, pattern] of [['--path', '/search?q=x'], ['--ignore', '/search?q=*']] as const) {
      const result = await runSvc(['trace:list', option, pattern, '--json'], { cwd: project.path })
      expect(result.exitCode).toBe(1)
      expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'E_BAD_OPTION' } })
      expect(result.stderr).toContain(`error [E_BAD_OPTION]: ${option} matches the path alone, without its query string`)
      expect(result.stderr).toContain(`fix: leave out "${pattern.slice('/search'.length)}": ${option} '/search'`)
    }
  })
})

describe('--method', () => {
  it('takes a comma-separated list in any case, and refuses a name that cannot be a method', async () => {
    const list = await svcJson<TraceListJson>(['trace:list', '--method', 'get, head'], { cwd: project.path })
    expect(list.filters.method).toBe('GET,HEAD')
    expect(list.traces.length).toBe(PATHS.length)
    for (const method of ['GET POST', 'GET;', 'GET,,HEAD']) {
      const { exitCode, document } = await svcJsonError(['trace:list', '--method', method], { cwd: project.path })
      expect(exitCode, method).toBe(1)
      expect(document.error, method).toMatchObject({ code: 'E_BAD_OPTION', message: `--method takes method names separated by commas (GET,HEAD), got "${method}"` })
    }
  })

  it('says beside an empty result that no svc route answers a method it names', async () => {
    const typo = await runSvc(['trace:list', '--method', 'GTE'], { cwd: project.path })
    expect(typo.exitCode).toBe(0)
    expect(typo.stdout).toBe('No traces match.\n')
    expect(typo.stderr).toBe('No svc route answers GTE (they answer GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS): is it spelled as you meant?\n')
    const known = await runSvc(['trace:list', '--method', 'DELETE'], { cwd: project.path })
    expect(known.stdout).toBe('No traces match.\n')
    expect(known.stderr).toBe('')
  })
})
