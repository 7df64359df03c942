/**
 * One GET to an app copy built as `svc` builds it (its .env, its trace
 * store), the app closed after it so that its trace is written: for tests of
 * what readers of the store see.
 */
import { loadApp } from '../../cli/project/load-app.ts'
import { findProject } from '../../cli/project/project.ts'
import { svcEnv } from './cli.ts'

/** The trace id of the request (`x-service-trace-id`). */
export async function tracedGet(appDir: string, path: string, headers: Record<string, string> = {}): Promise<string> {
  const loaded = await loadApp(findProject(appDir, svcEnv()))
  try {
    const response = await loaded.app.fetch(new Request(`http://127.0.0.1:8080${path}`, { headers }))
    await response.text()
    return response.headers.get('x-service-trace-id')!
  } finally {
    await loaded.close()
  }
}
