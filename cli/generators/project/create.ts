/**
 * Creates a new project folder from the templates (templates.ts): written
 * whole into a hidden sibling folder first, then moved into place, so that a
 * failure leaves nothing half-made. `.env` gets a fresh JWT secret and mode
 * 600; an RS256 project gets its key pair in storage/keys/.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { generateRsaKeyPair } from '../../../framework/index.ts'
import { generateSecret, writeJwtKeyFiles } from '../../../framework/node/index.ts'
import { findCommand, loadManifest } from '../../command/manifest.ts'
import { CliError } from '../../output/cli-error.ts'
import { svcManifest, svcRoot } from '../../version.ts'
import { renderProject, type ProjectSettings } from './templates.ts'

export type JwtAlgorithmChoice = 'HS256' | 'RS256'

export interface NewProjectOptions {
  /** The folder to create, as given (`my-api`, `apps/my-api`, `.`); its last part is the package name. */
  folder: string
  /** Where `folder` is relative to. */
  cwd: string
  /** '' for the embedded SQLite file. */
  databaseUrl: string
  jwtAlgorithm: JwtAlgorithmChoice
  /** package.json's svc dependency: a version range, or a tarball or folder (`file:...`); default: defaultSvcSpec. */
  svcSpec?: string
  /**
   * More work on the written project before it is moved into place (the example resource): a refusal there leaves
   * nothing behind, as any other. It gets the staging folder, a sibling of the target (relative paths are the same).
   */
  finish?: (staging: string) => Promise<void>
}

export interface CreatedProject {
  name: string
  dir: string
  /** Relative to `dir`, in the order written. */
  files: string[]
  svcSpec: string
}

/** npm's rule for an unscoped package name. */
const PACKAGE_NAME = /^[a-z0-9][a-z0-9._~-]*$/
const DATABASE_URL = /^(file:|libsql:|https?:|wss?:)/

export function projectDir(options: Pick<NewProjectOptions, 'folder' | 'cwd'>): { dir: string; name: string } {
  const dir = resolve(options.cwd, options.folder)
  return { dir, name: basename(dir) }
}

/** Checks what can be checked before any question is asked or file written. */
export function checkProjectTarget(options: Pick<NewProjectOptions, 'folder' | 'cwd'>): { dir: string; name: string } {
  const { dir, name } = projectDir(options)
  if (!PACKAGE_NAME.test(name) || name.length > 214 || name === 'node_modules') {
    const suggestion = name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().replace(/[^a-z0-9._~-]+/g, '-').replace(/^[-._~]+|-+$/g, '')
    const better = suggestion !== '' && suggestion !== name && PACKAGE_NAME.test(suggestion) ? suggestion : undefined
    throw new CliError('E_BAD_NAME', `"${name}" cannot be a package name: lowercase letters, digits, - . _ ~, starting with a letter or digit${better ? ` (${better} can)` : ''}`, {
      hint: better ? `svc new ${join(dirname(options.folder), better)}` : 'pick another name',
    })
  }
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new CliError('E_EXISTS', `${dir} exists and is a file`, { hint: 'pick another name' })
    const entries = readdirSync(dir).filter((entry) => entry !== '.git')
    if (entries.length > 0) {
      throw new CliError('E_EXISTS', `${dir} already exists and is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''})`, {
        hint: 'pick another name; svc new never writes into a folder that has files',
      })
    }
  }
  return { dir, name }
}

export function checkDatabaseUrl(url: string): string | undefined {
  return url === '' || DATABASE_URL.test(url) ? undefined : 'a database URL starts with file:, libsql://, http(s):// or ws(s):// (empty: the embedded file)'
}

export async function createProject(options: NewProjectOptions): Promise<CreatedProject> {
  const { dir, name } = checkProjectTarget(options)
  const badUrl = checkDatabaseUrl(options.databaseUrl)
  if (badUrl !== undefined) throw new CliError('E_BAD_OPTION', `--database=${options.databaseUrl}: ${badUrl}`)
  const svcSpec = dependencySpec(options.svcSpec, options.cwd, dir)
  const settings: ProjectSettings = {
    name,
    svcSpec,
    versions: toolVersions(),
    databaseUrl: options.databaseUrl,
    jwtAlgorithm: options.jwtAlgorithm,
    secret: generateSecret(),
    // Made before the files: .dev.vars (wrangler dev) carries the pair storage/keys/ holds.
    jwtKeys: options.jwtAlgorithm === 'RS256' ? await generateRsaKeyPair() : undefined,
    devCommand: findCommand(await loadManifest(), 'live') !== undefined ? 'svc live' : 'svc serve --migrate',
  }
  const files = renderProject(settings)

  mkdirSync(dirname(dir), { recursive: true })
  const staging = mkdtempSync(join(dirname(dir), `.${name}-`))
  try {
    // mkdtemp makes a private folder; the project is an ordinary one.
    chmodSync(staging, 0o777 & ~process.umask())
    for (const file of files) {
      const path = join(staging, file.path)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, file.contents, { mode: file.mode ?? 0o644 })
    }
    if (settings.jwtKeys !== undefined) writeJwtKeyFiles(join(staging, 'storage'), settings.jwtKeys)
    await options.finish?.(staging)
    if (!existsSync(dir)) renameSync(staging, dir)
    else for (const entry of readdirSync(staging)) renameSync(join(staging, entry), join(dir, entry))
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return { name, dir, files: files.map((file) => file.path), svcSpec }
}

/**
 * package.json's svc dependency. By default a caret range on the running
 * svc's version: the project gets this svc's fixes, never its next breaking
 * release. A path (`file:../svc-0.1.0.tgz`, `./svc`) is rewritten relative to
 * the new project, where npm reads it.
 *
 * An svc run from a checkout (not installed under node_modules) is not the
 * package the registry's `svc` name holds (an unrelated one): the project
 * then depends on that checkout's folder, so that `npm install` gets this svc.
 */
function dependencySpec(spec: string | undefined, cwd: string, dir: string): string {
  spec ||= defaultSvcSpec(svcRoot(), svcManifest().version)
  const path = spec.startsWith('file:') ? spec.slice('file:'.length) : spec.startsWith('.') || isAbsolute(spec) ? spec : undefined
  if (path === undefined) return spec
  const target = resolve(cwd, path)
  if (!existsSync(target)) throw new CliError('E_BAD_OPTION', `--svc=${spec}: ${target} does not exist`, { hint: 'a tarball from npm pack, or an svc folder' })
  return `file:${relative(dir, target).split('\\').join('/')}`
}

/** The svc dependency without --svc: `^<version>` for an installed svc, `file:<folder>` for a checkout. */
export function defaultSvcSpec(svcFolder: string | null, version: string): string {
  return svcFolder === null || svcFolder.split(/[\\/]/).includes('node_modules') ? `^${version}` : `file:${svcFolder}`
}

/** What the project installs besides svc, in the ranges svc itself is built and tested with. */
function toolVersions(): ProjectSettings['versions'] {
  const { dependencies = {}, devDependencies = {} } = svcManifest()
  return {
    valibot: dependencies.valibot ?? '^1.0.0',
    vitest: devDependencies.vitest ?? '^4.1.0',
    typescript: devDependencies.typescript ?? '^5.9.0',
    typesNode: devDependencies['@types/node'] ?? '^20.19.0',
  }
}
