/**
 * Which command starts `svc lsp --stdio` for a workspace folder: the
 * `svc.command` setting (an executable, or a `.js` file run with
 * `svc.nodePath`; `${workspaceFolder}` is expanded), else the folder's `node_modules/.bin/svc`, else `svc` on
 * the PATH. No VS Code import: unit-tested as it is.
 */
import { existsSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'

export interface ServerCommand {
  command: string
  args: string[]
  /** How it was chosen, for the output channel. */
  origin: 'setting' | 'workspace' | 'path'
}

export function resolveServerCommand(folder: string, setting: string, nodePath = 'node', exists: (path: string) => boolean = existsSync): ServerCommand {
  const lsp = ['lsp', '--stdio']
  const configured = setting.trim().replace(/\$\{workspaceFolder\}/g, folder)
  if (configured !== '') {
    const path = isAbsolute(configured) || configured.startsWith('.') ? resolve(folder, configured) : configured
    if (/\.[cm]?js$/.test(path)) return { command: nodePath, args: [path, ...lsp], origin: 'setting' }
    return { command: path, args: lsp, origin: 'setting' }
  }
  const local = join(folder, 'node_modules', '.bin', process.platform === 'win32' ? 'svc.cmd' : 'svc')
  if (exists(local)) return { command: local, args: lsp, origin: 'workspace' }
  return { command: 'svc', args: lsp, origin: 'path' }
}
