/** The app's queue driver alone (no routes loaded): what queue:status, queue:flush and queue:retry work on. */
import { resolveQueueSettings, type AppConfig, type QueueDriver, type QueueSettings } from '../../framework/index.ts'
import { openQueueDriver } from '../../framework/node/index.ts'
import { CliError } from '../output/cli-error.ts'
import { openExistingDatabase } from '../database/open.ts'
import { loadConfig } from '../project/load-app.ts'
import type { Project } from '../project/project.ts'
import { checkReachable, queueDatabase } from './worker.ts'

export interface ProjectQueue {
  driver: QueueDriver
  settings: QueueSettings
  config: AppConfig
}

export async function withProjectQueue<T>(project: Project, work: (queue: ProjectQueue) => Promise<T>): Promise<T> {
  const config = loadConfig(project)
  let settings: QueueSettings
  try {
    settings = resolveQueueSettings(config)
  } catch (error) {
    throw new CliError('E_CONFIG', `Invalid configuration: ${(error as Error).message}`, { hint: `fix it in ${project.envFile} or the environment` })
  }
  const database = settings.connection === 'database' ? await openExistingDatabase(project, config) : undefined
  const driver = await openQueueDriver(settings, database)
  try {
    await checkReachable(driver, settings.connection, queueDatabase(project, config, database))
    return await work({ driver, settings, config })
  } finally {
    await driver.close()
    database?.close()
  }
}
