/**
 * svc's Node adapter: the HTTP server, the libSQL file database and `.env`
 * files. Everything Node-only in the framework lives in this folder.
 */
export { serve, DEFAULT_REQUEST_TIMEOUT_MS, type RunningServer, type ServeOptions } from './serve.ts'
export { openDatabase, databaseUrl, DEFAULT_BUSY_TIMEOUT_MS, type OpenDatabaseOptions } from './database.ts'
export { ensureEnvFile, generateSecret, loadEnv, readEnvFile, setEnvValue } from './env-file.ts'
export { openTraceStore, traceDatabaseUrl, TRACE_DATABASE_FILE, type OpenTraceStoreOptions } from './traces.ts'
export {
  openTraceSink,
  resolveTraceWriter,
  threadTraceSink,
  workerTraceSink,
  CHECKPOINT_EVERY_BYTES,
  type NodeTraceSink,
  type ThreadTraceSinkOptions,
  type WorkerTraceSink,
} from './trace-sink.ts'
export { logMailer } from './mail-log.ts'
// The SMTP and Redis drivers load nodemailer and BullMQ: only through these, when the settings name them.
export { openQueueDriver, openMailer, type ClosableMailer } from './background.ts'
export type { SmtpMailerOptions } from './smtp-mailer.ts'
export type { RedisQueueOptions } from './redis-queue.ts'
export { nativeArgon2id } from './argon2.ts'
export { readJwtKeyFiles, writeJwtKeyFiles, jwtKeysDir, checkJwtKeyPair } from './jwt-keys.ts'
export { publicFiles, type PublicFilesOptions } from './public-files.ts'
export { maintenanceFile, readMaintenanceFile, writeMaintenanceFile, removeMaintenanceFile, type MaintenanceFileOptions } from './maintenance-file.ts'
