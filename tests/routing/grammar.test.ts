/**
 * The routing grammar (framework/router/path-grammar.ts): its functions, and
 * that it is the only place the grammar is written. The framework, api:why,
 * the language server and the extension import it; a second copy of the
 * parameter pattern or of constraint anchoring anywhere else fails here.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  anchorConstraint,
  API_PREFIX,
  isApiPath,
  joinPaths,
  paramNames,
  parseSegments,
  pathGlob,
  routeFilePrefix,
  unanchorConstraint,
} from '../../framework/router/path-grammar.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

describe('the routing grammar', () => {
  it('reads segments and parameter names', () => {
    expect(parseSegments('/posts/{id}/{slug?}')).toEqual([
      { kind: 'static', value: 'posts' },
      { kind: 'param', name: 'id', optional: false },
      { kind: 'param', name: 'slug', optional: true },
    ])
    expect(paramNames('/users/{user}/posts/{post?}')).toEqual(['user', 'post'])
  })

  it('anchors a constraint to the whole value, keeping flags but g and y', () => {
    const id = anchorConstraint(/\d+/)
    expect(id.source).toBe('^(?:\\d+)$')
    expect(id.test('12a')).toBe(false)
    expect(anchorConstraint('^[a-z]+$').source).toBe('^(?:[a-z]+)$')
    expect(anchorConstraint(/[a-z]+/gi).flags).toBe('i')
    expect(anchorConstraint('[a-z]+', 'iy').flags).toBe('i')
    expect(() => anchorConstraint('(\\d+')).toThrow(SyntaxError)
    expect(unanchorConstraint(id.source)).toBe('\\d+')
  })

  it('joins prefixes, knows the /api prefix and the file that gives it', () => {
    expect(joinPaths('/api', 'v1/', '/posts/')).toBe('/api/v1/posts')
    expect(API_PREFIX).toBe('/api')
    expect(isApiPath('/api')).toBe(true)
    expect(isApiPath('/api/v1')).toBe(true)
    expect(isApiPath('/apiary')).toBe(false)
    expect(routeFilePrefix('/app/routes/api.ts')).toBe('/api')
    expect(routeFilePrefix('C:\\app\\routes\\api.js')).toBe('/api')
    expect(routeFilePrefix('/app/routes/web.ts')).toBe('/')
  })

  it('turns a route into the trace commands\' path glob', () => {
    expect(pathGlob('/api/v1/posts')).toBe('/api/v1/posts')
    expect(pathGlob('/api/v1/posts/{id}')).toBe('/api/v1/posts/*')
    expect(pathGlob('/api/v1/posts/archive/{year?}')).toBe('/api/v1/posts/archive**')
  })
})

describe('the routing grammar has one source', () => {
  const files = ['framework', 'cli', 'extension/src', 'extension/webview'].flatMap((dir) => sources(join(ROOT, dir)))
  const grammar = join(ROOT, 'framework', 'router', 'path-grammar.ts')

  it.each([
    ['the parameter pattern', /\[A-Za-z_\]\[A-Za-z0-9_\]\*\)?(\\\?|\()/],
    ['constraint anchoring', /\^\(\?:\$\{/],
    ['the /api prefix', /['"]\/api['"]/],
  ])('%s is written only in path-grammar.ts', (_, pattern) => {
    const copies = files.filter((file) => file !== grammar && !/\.test\.ts$/.test(file) && pattern.test(readFileSync(file, 'utf8')))
    expect(copies.map((file) => relative(ROOT, file))).toEqual([])
  })

  it('the language server, api:why and the extension import it', () => {
    for (const file of ['cli/lsp/analysis.ts', 'cli/lsp/handlers.ts', 'cli/lsp/route-file.ts', 'cli/lsp/server.ts', 'extension/src/extension.ts']) {
      expect(readFileSync(join(ROOT, file), 'utf8'), file).toContain('framework/router/path-grammar.ts')
    }
  })
})

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !entry.parentPath.includes('node_modules'))
    .map((entry) => join(entry.parentPath, entry.name))
}
