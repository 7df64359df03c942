/**
 * Whether a command is on PATH, as the shell of an npm script would find it
 * (npm puts the project's node_modules/.bin first): a script that calls a
 * missing one stops on the shell's `sh: deno: not found`, which says neither
 * what to install nor how.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { EnvRecord } from '../../framework/index.ts'

/** The path of `name` in the folders of PATH, or undefined. Windows: with PATHEXT's extensions. */
export function findCommand(name: string, env: EnvRecord, platform: NodeJS.Platform = process.platform): string | undefined {
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : ['']
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder === '') continue
    for (const extension of extensions) {
      const candidate = join(folder, name + extension)
      if (isExecutableFile(candidate, platform)) return candidate
    }
  }
  return undefined
}

function isExecutableFile(path: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(path).isFile()) return false
    if (platform !== 'win32') accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
