/**
 * Which command starts `svc lsp --stdio` for a workspace folder, found as
 * users have the CLI: the `svc.command` setting (an executable, or a `.js`
 * file run with `svc.nodePath`; `${workspaceFolder}` is expanded), else the
 * folder's `node_modules/.bin/svc`, else the `bin` the folder's own
 * package.json declares for `svc` (this repo's layout), else `svc` on the
 * PATH. When none is there, what was tried, for the welcome view. No VS Code
 * import: unit-tested as it is.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import { delimiter, isAbsolute, join, resolve } from 'node:path'

export interface ServerCommand {
  /** The executable and its arguments; the client adds `--stdio` (its stdio transport), so `args` end with `lsp`. */
  command: string
  args: string[]
  /** How it was chosen, for the output channel. */
  origin: 'setting' | 'workspace' | 'package' | 'path'
}

export interface ServerCommandMissing {
  missing: true
  /** Each place looked at, in order: `node_modules/.bin/svc (not found)`... */
  tried: string[]
}

export interface Lookup {
  exists(path: string): boolean
  /** True when `path` is a file this user may run. */
  executable(path: string): boolean
  readFile(path: string): string | undefined
  /** The PATH, and on Windows PATHEXT. */
  env: Record<string, string | undefined>
  platform: NodeJS.Platform
}

export const nodeLookup: Lookup = {
  exists: existsSync,
  executable: (path) => {
    try {
      accessSync(path, constants.X_OK)
      return true
    } catch {
      return false
    }
  },
  readFile: (path) => {
    try {
      return readFileSync(path, 'utf8')
    } catch {
      return undefined
    }
  },
  env: process.env,
  platform: process.platform,
}

const LSP = ['lsp']

export function resolveServerCommand(folder: string, setting: string, nodePath = 'node', lookup: Lookup = nodeLookup): ServerCommand | ServerCommandMissing {
  const configured = setting.trim().replace(/\$\{workspaceFolder\}/g, folder)
  if (configured !== '') {
    const path = isAbsolute(configured) || configured.startsWith('.') ? resolve(folder, configured) : configured
    return runnable(path, nodePath, 'setting')
  }
  const windows = lookup.platform === 'win32'
  const tried: string[] = []

  const local = join(folder, 'node_modules', '.bin', windows ? 'svc.cmd' : 'svc')
  if (lookup.exists(local)) {
    // A link to svc's dist/cli/bin.js that lost its execute bit (svc linked from a checkout, `"svc": "file:<checkout>"`
    // as `svc new` writes it there, whose dist/ was built again): spawning it failed with EACCES and the views said only
    // "not running". Node runs it whatever its mode (it follows the link to the .js file).
    if (windows || lookup.executable(local)) return { command: local, args: LSP, origin: 'workspace' }
    return { command: nodePath, args: [local, ...LSP], origin: 'workspace' }
  }
  tried.push(`${local} (not found)`)

  const manifest = join(folder, 'package.json')
  const bin = packageBin(lookup.readFile(manifest))
  if (bin !== undefined) {
    const path = resolve(folder, bin)
    if (lookup.exists(path)) return runnable(path, nodePath, 'package')
    tried.push(`"bin": { "svc": "${bin}" } of ${manifest} (${path} not found: build it first?)`)
  } else tried.push(`a "bin" for svc in ${manifest} (none)`)

  const onPath = findOnPath('svc', lookup)
  if (onPath !== undefined) return { command: onPath, args: LSP, origin: 'path' }
  tried.push('svc on the PATH (not found)')
  return { missing: true, tried }
}

export function isMissing(found: ServerCommand | ServerCommandMissing): found is ServerCommandMissing {
  return 'missing' in found
}

function runnable(path: string, nodePath: string, origin: ServerCommand['origin']): ServerCommand {
  if (/\.[cm]?[jt]s$/.test(path)) return { command: nodePath, args: [path, ...LSP], origin }
  return { command: path, args: LSP, origin }
}

/** `"bin": { "svc": "./dist/cli/bin.js" }` (or `"bin": "./x.js"` of a package named svc). */
function packageBin(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  try {
    const manifest = JSON.parse(text) as { name?: unknown; bin?: unknown }
    if (typeof manifest.bin === 'string') return manifest.name === 'svc' ? manifest.bin : undefined
    if (typeof manifest.bin === 'object' && manifest.bin !== null) {
      const svc = (manifest.bin as Record<string, unknown>).svc
      return typeof svc === 'string' ? svc : undefined
    }
  } catch {
    // not JSON: no bin
  }
  return undefined
}

function findOnPath(name: string, lookup: Lookup): string | undefined {
  const windows = lookup.platform === 'win32'
  const extensions = windows ? (lookup.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean) : ['']
  for (const dir of (lookup.env.PATH ?? lookup.env.Path ?? '').split(windows ? ';' : delimiter)) {
    if (dir === '') continue
    for (const extension of extensions) {
      const candidate = join(dir, `${name}${extension.toLowerCase()}`)
      if (lookup.exists(candidate) && (windows || lookup.executable(candidate))) return candidate
    }
  }
  return undefined
}
