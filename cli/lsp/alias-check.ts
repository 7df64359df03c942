/**
 * Which middleware aliases the app accepts, asked of the app itself: for each
 * alias used in the route files, the app is built the way every command
 * builds it (`loadApp`: `.env`, kernel, plugins) but with one probe route that
 * uses only that alias. The framework then reports exactly what it would at
 * startup ("Unknown middleware alias ... (known aliases: ...)", or the
 * factory's own error for bad arguments such as `throttle:abc`). The files are
 * imported without jiti's module cache, so an edited kernel is seen.
 */
import { defineRoutes, type RouteDefinition } from '../../framework/index.ts'
import { loadApp } from '../project/load-app.ts'
import type { ImportFile } from '../project/import-file.ts'
import type { Project } from '../project/project.ts'

let freshImport: ImportFile | undefined

async function importFresh(path: string): Promise<Record<string, unknown>> {
  if (freshImport === undefined) {
    const { createJiti } = await import('jiti')
    const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false })
    freshImport = (file) => jiti.import(file) as Promise<Record<string, unknown>>
  }
  return freshImport(path)
}

const probeHandler = () => null
const noRoutes = defineRoutes(() => {})

/** alias → null when the app accepts it, else the app's error message. */
export async function checkAliases(project: Project, aliases: Iterable<string>, importFile: ImportFile = importFresh): Promise<Map<string, string | null>> {
  const results = new Map<string, string | null>()
  for (const alias of new Set(aliases)) {
    const probe: RouteDefinition = defineRoutes((r) => {
      r.get('/__svc_alias_probe', probeHandler).middleware(alias)
    })
    const importProbe: ImportFile = async (path) => (/[\\/]routes[\\/](api|web)\.[cm]?[jt]s$/.test(path) ? { default: /api\.[cm]?[jt]s$/.test(path) ? probe : noRoutes } : importFile(path))
    try {
      const loaded = await loadApp(project, { importFile: importProbe, withDatabase: false })
      await loaded.close()
      results.set(alias, null)
    } catch (error) {
      const message = (error as Error).message.replace(/^Cannot load the app: /, '')
      // Only errors about this alias count; anything else (a broken kernel) is not the alias' fault.
      results.set(alias, message.includes(`"${alias}"`) ? message : null)
    }
  }
  return results
}
