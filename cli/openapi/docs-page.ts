/**
 * The docs page: Swagger UI over the app's API description, working with no
 * network. `svc make:openapi --with-swagger` writes `public/docs.html` (the
 * document inlined, its own Content-Security-Policy); the app loaded by the
 * CLI (`svc serve`) then answers `/docs` with it and `/docs/assets/<file>`
 * with Swagger UI's files from the swagger-ui-dist package: no CDN, and
 * the online validator is off. Off in production unless `API_DOCS=true`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { AppPlugin } from '../../framework/app/create-app.ts'
import type { AppConfig } from '../../framework/config/config.ts'
import { bool } from '../../framework/config/env-readers.ts'
import { HttpError } from '../../framework/http/http-error.ts'
import { defineRoutes } from '../../framework/router/define-routes.ts'
import type { Project } from '../project/project.ts'
import type { JsonObject } from './document.ts'

export const DOCS_PATH = '/docs'
export const DOCS_PAGE_FILE = join('public', 'docs.html')
const ASSETS_PATH = `${DOCS_PATH}/assets`

/** Swagger UI's files the page loads (from swagger-ui-dist), and their types. */
const SWAGGER_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
}

/** Starts Swagger UI on the inlined document (a file of its own: the page's policy allows no inline script). */
const START_SCRIPT = `window.addEventListener('load', function () {
  var spec = JSON.parse(document.getElementById('openapi-document').textContent)
  window.ui = SwaggerUIBundle({ spec: spec, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, tryItOutEnabled: false })
})
`
const START_FILE = 'start.js'

/** Whether the app serves the docs page: `API_DOCS`, by default on except in production. */
export function apiDocsEnabled(config: AppConfig): boolean {
  return bool(config.vars, 'API_DOCS', config.env !== 'production')
}

/** The page, with `document` inlined. Same document, same bytes. */
export function renderDocsPage(document: JsonObject): string {
  const info = (document.info ?? {}) as { title?: unknown }
  const title = typeof info.title === 'string' ? info.title : 'API'
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    // Swagger UI sets style attributes on its elements.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    // "Try it out" calls the API: this origin, and the document's servers.
    `connect-src ${['self', ...serverOrigins(document)].map((origin) => (origin === 'self' ? "'self'" : origin)).join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(policy)}">
<title>${escapeText(title)}: API documentation</title>
<link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script type="application/json" id="openapi-document">${scriptJson(document)}</script>
<script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${ASSETS_PATH}/${START_FILE}"></script>
</body>
</html>
`
}

/**
 * The plugin serving the page, when it is on and `public/docs.html` exists
 * (written by `svc make:openapi --with-swagger`), or always in a server
 * (`serving`), which reads the page at each request: one started before the
 * page was first written serves it then, without a restart. None when the
 * app has its own route under /docs. The other loads (route:list, tinker)
 * list the routes only when there is a page.
 */
export function apiDocsPlugins(project: Project, config: AppConfig, appPaths: readonly string[], serving = false): AppPlugin[] {
  const page = join(project.appDir, DOCS_PAGE_FILE)
  if (!apiDocsEnabled(config) || (!serving && !existsSync(page))) return []
  if (appPaths.some((path) => path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`))) return []
  return [apiDocsPlugin(page)]
}

export function apiDocsPlugin(page: string): AppPlugin {
  const assets = new Map<string, Buffer>()
  const headers = (type: string, cache: string) => ({
    'content-type': type,
    'cache-control': cache,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  })
  return {
    name: 'api-docs',
    web: defineRoutes((r) => {
      r.get(DOCS_PATH, function apiDocsPage() {
        // Read at each request: a page written again by make:openapi shows without a restart.
        if (!existsSync(page)) throw new HttpError(404, 'No docs page: run svc make:openapi --with-swagger')
        return new Response(readFileSync(page), { headers: { ...headers('text/html; charset=utf-8', 'no-cache'), 'x-frame-options': 'DENY' } })
      })
      r.get(`${ASSETS_PATH}/{file}`, function apiDocsAsset(c) {
        const file = c.params.file!
        if (file === START_FILE) return new Response(START_SCRIPT, { headers: headers('text/javascript; charset=utf-8', 'no-cache') })
        const type = SWAGGER_FILES[file]
        if (type === undefined) throw new HttpError(404, `No docs asset ${file}`)
        let bytes = assets.get(file)
        if (bytes === undefined) {
          bytes = readFileSync(join(swaggerUiDir(), file))
          assets.set(file, bytes)
        }
        return new Response(new Uint8Array(bytes), { headers: headers(type, 'public, max-age=3600') })
      })
    }),
  }
}

function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

function serverOrigins(document: JsonObject): string[] {
  const servers = Array.isArray(document.servers) ? (document.servers as Array<{ url?: unknown }>) : []
  const origins = new Set<string>()
  for (const server of servers) {
    if (typeof server.url !== 'string') continue
    try {
      const url = new URL(server.url)
      if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin)
    } catch {
      // A relative URL (`/`) is this origin: 'self' covers it.
    }
  }
  return [...origins].sort()
}

/** JSON inside `<script type="application/json">`: nothing in it may close the element or open a comment. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;')
}
