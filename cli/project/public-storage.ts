/**
 * "Public" in an API app: the folder `public/` beside routes/ holds files
 * meant for people rather than for the API (what make:openapi and
 * make:postman write). Of it, only `public/storage` is served, under
 * `/storage/` (the Node adapter's publicFiles). `svc storage:link` makes
 * `public/storage` a link to `<storage>/app/public`, where the app writes the
 * files it publishes (uploads), so that they are served without living in
 * the source tree. See docs/storage.md.
 */
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { CliError } from '../output/cli-error.ts'
import type { Project } from './project.ts'

export const PUBLIC_STORAGE_PREFIX = '/storage'

export function publicStorageLink(project: Project): string {
  return join(project.appDir, 'public', 'storage')
}

export function publicStorageTarget(project: Project): string {
  return join(project.storageDir, 'app', 'public')
}

export type LinkStatus = 'created' | 'exists' | 'replaced'

/** Makes `public/storage` a link to `<storage>/app/public` (both folders created as needed). */
export function linkPublicStorage(project: Project, options: { force: boolean; platform?: NodeJS.Platform }): LinkStatus {
  const link = publicStorageLink(project)
  const target = publicStorageTarget(project)
  mkdirSync(target, { recursive: true })
  mkdirSync(dirname(link), { recursive: true })
  let status: LinkStatus = 'created'
  const existing = lstatOrUndefined(link)
  if (existing !== undefined) {
    if (!existing.isSymbolicLink()) {
      throw new CliError('E_LINK_EXISTS', `${link} is a ${existing.isDirectory() ? 'folder' : 'file'}, not a link`, {
        hint: `move its files into ${target}, remove it, and run svc storage:link again`,
      })
    }
    if (resolve(dirname(link), readlinkSync(link)) === target) return 'exists'
    if (!options.force) {
      throw new CliError('E_LINK_EXISTS', `${link} already links to ${resolve(dirname(link), readlinkSync(link))}`, { hint: 'svc storage:link --force replaces it' })
    }
    rmSync(link)
    status = 'replaced'
  }
  // Windows makes a folder link without special rights only as a junction, which takes an absolute target.
  if ((options.platform ?? process.platform) === 'win32') symlinkSync(target, link, 'junction')
  else symlinkSync(relative(dirname(link), target), link, 'dir')
  return status
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}
