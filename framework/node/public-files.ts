/**
 * Files served as they are, from a folder on disk (Node only): the files
 * `svc storage:link` publishes (`public/storage` -> `storage/app/public`),
 * under `/storage/`. A global middleware, so it sees requests no route
 * matches; what it does not serve (another path, another method, no such
 * file) goes on to the routes.
 *
 * Safety: the path is decoded once and must stay inside the folder (no `..`,
 * no NUL, no backslash; symbolic links inside are followed only when they
 * resolve inside it). Files uploaded by users are served with `nosniff` and
 * a sandboxing Content-Security-Policy, so an uploaded HTML or SVG file cannot
 * run script on the API's origin.
 *
 * @example
 * createApp({ ..., middleware: [publicFiles({ folder: 'public/storage', prefix: '/storage' })] })
 */
import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { extname, join, sep } from 'node:path'
import { Readable } from 'node:stream'
import type { Middleware } from '../router/types.ts'

export interface PublicFilesOptions {
  /** The folder the files come from (it may be a symbolic link, as public/storage is). */
  folder: string
  /** The URL prefix they are served under (`/storage`). */
  prefix: string
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.ico': 'image/x-icon',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.mp3': 'audio/mpeg',
  '.mp4': 'video/mp4',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.webm': 'video/webm',
  '.webp': 'image/webp',
  '.xml': 'application/xml; charset=utf-8',
  '.zip': 'application/zip',
}

export function publicFiles(options: PublicFilesOptions): Middleware {
  const prefix = `/${options.prefix.replace(/^\/+|\/+$/g, '')}/`
  return async function publicFilesMiddleware(c, next) {
    if ((c.method !== 'GET' && c.method !== 'HEAD') || !c.path.startsWith(prefix)) return next()
    const file = await findFile(options.folder, c.path.slice(prefix.length))
    if (file === undefined) return next()
    const headers = new Headers({
      'content-type': TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream',
      'content-length': String(file.size),
      'last-modified': file.modified.toUTCString(),
      'cache-control': 'public, max-age=0, must-revalidate',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    })
    const since = Date.parse(c.headers.get('if-modified-since') ?? '')
    if (!Number.isNaN(since) && Math.floor(file.modified.getTime() / 1000) <= Math.floor(since / 1000)) return new Response(null, { status: 304, headers })
    if (c.method === 'HEAD') return new Response(null, { headers })
    return new Response(Readable.toWeb(createReadStream(file.path)) as ReadableStream, { headers })
  }
}

/** The regular file `relative` names inside `folder`, or undefined (not there, outside, a folder, a bad path). */
async function findFile(folder: string, relative: string): Promise<{ path: string; size: number; modified: Date } | undefined> {
  let decoded: string
  try {
    decoded = decodeURIComponent(relative)
  } catch {
    return undefined
  }
  const segments = decoded.split('/')
  if (decoded === '' || decoded.includes('\0') || decoded.includes('\\') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return undefined
  try {
    const root = await realpath(folder)
    const path = await realpath(join(root, ...segments))
    if (!path.startsWith(`${root}${sep}`)) return undefined
    const info = await stat(path)
    return info.isFile() ? { path, size: info.size, modified: info.mtime } : undefined
  } catch {
    return undefined
  }
}
