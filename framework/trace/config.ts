/**
 * Trace settings, read from the same flat environment as the rest of the
 * config (`TRACE_*`). See docs/traces.md for each one.
 */
import { ConfigError, type EnvRecord } from '../config/config.ts'
import { int, list, number, text } from '../config/env-readers.ts'

/** `all` keeps every request; the others keep what any listed mode selects. */
export type TraceMode = 'all' | 'errors' | 'slow' | 'sample' | 'off'

export interface TraceConfig {
  modes: ReadonlySet<TraceMode>
  /** libSQL URL of the trace store; undefined = `file:<storage>/traces.sqlite`. */
  databaseUrl: string | undefined
  databaseAuthToken: string | undefined
  /** `slow` mode and `--slow` without a value: requests at least this long (ms). */
  slowMs: number
  /** `sample` mode: the share of requests kept, 0..1 (5xx are always kept). */
  sampleRate: number
  /** Traces older than this are pruned automatically (0 = never by age). */
  retentionDays: number
  /** At most this many traces are kept, the oldest pruned first (0 = no limit). */
  maxTraces: number
  /** Hard bound of traces waiting to be written; beyond it new ones are dropped and counted. */
  bufferSize: number
  /** Traces written per transaction. */
  batchSize: number
  /** A batch is written at the latest this long after its first trace arrived. */
  flushMs: number
  /** Request and response bodies are cut at this many bytes. */
  bodyLimit: number
  /** A statement shape run this many times in one request is an N+1 finding. */
  nPlusOneThreshold: number
  /**
   * Where batches are written on Node: `worker`, a worker thread that owns
   * the store's connection, so that no write (a store locked by another
   * process, a checkpoint, a prune) ever holds up a request; `thread`, the
   * request thread, between requests (it never waits for a lock: a locked
   * store is tried again later; a worker thread checkpoints); `auto`
   * (default), `worker` where the process can run on more than one CPU and
   * `thread` where it can run on one only (svc/node's `openTraceSink`).
   * Other runtimes write from the request thread through `storeSink` (their
   * stores are asynchronous).
   */
  writer: 'auto' | 'thread' | 'worker'
  /** Header names (lower case) whose values are redacted. */
  redactHeaders: ReadonlySet<string>
  /** JSON body fields and query parameters (lower case) whose values are redacted, at any depth. */
  redactFields: ReadonlySet<string>
}

/**
 * Header names redacted by name. Beside these, every header whose name
 * contains token, key, secret, auth, cookie, session or passw is redacted
 * (`REDACTED_HEADER_PATTERN`), and the names in `TRACE_REDACT_HEADERS`.
 */
export const DEFAULT_REDACTED_HEADERS = ['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization', 'x-auth-token']
export const DEFAULT_REDACTED_FIELDS = [
  'password',
  'password_confirmation',
  'current_password',
  'new_password',
  'token',
  'access_token',
  'refresh_token',
  'secret',
  'client_secret',
  'api_key',
  'apikey',
]

export function resolveTraceConfig(vars: EnvRecord = {}): TraceConfig {
  return {
    modes: modes(vars),
    databaseUrl: text(vars, 'TRACE_DATABASE_URL'),
    databaseAuthToken: text(vars, 'TRACE_DATABASE_AUTH_TOKEN'),
    slowMs: number(vars, 'TRACE_SLOW_MS', 500, 0, 3_600_000),
    sampleRate: number(vars, 'TRACE_SAMPLE_RATE', 1, 0, 1),
    retentionDays: number(vars, 'TRACE_RETENTION_DAYS', 7, 0, 3650),
    maxTraces: int(vars, 'TRACE_MAX_TRACES', 100_000, 0, 100_000_000),
    bufferSize: int(vars, 'TRACE_BUFFER_SIZE', 5000, 1, 1_000_000),
    batchSize: int(vars, 'TRACE_BATCH_SIZE', 1000, 1, 10_000),
    flushMs: int(vars, 'TRACE_FLUSH_MS', 250, 1, 60_000),
    bodyLimit: int(vars, 'TRACE_BODY_LIMIT', 16_384, 0, 16_777_216),
    nPlusOneThreshold: int(vars, 'TRACE_N_PLUS_ONE', 5, 2, 1_000_000),
    writer: writer(vars),
    redactHeaders: new Set([...DEFAULT_REDACTED_HEADERS, ...list(vars, 'TRACE_REDACT_HEADERS')]),
    redactFields: new Set([...DEFAULT_REDACTED_FIELDS, ...list(vars, 'TRACE_REDACT_FIELDS')]),
  }
}

function modes(vars: EnvRecord): Set<TraceMode> {
  const raw = list(vars, 'TRACE_MODE')
  if (raw.length === 0) return new Set(['all'])
  const allowed: TraceMode[] = ['all', 'errors', 'slow', 'sample', 'off']
  for (const mode of raw) {
    if (!(allowed as string[]).includes(mode)) {
      throw new ConfigError('TRACE_MODE', `expected all, errors, slow, sample or off (or a comma-separated mix), got "${mode}"`)
    }
  }
  if (raw.includes('off') && raw.length > 1) throw new ConfigError('TRACE_MODE', '"off" cannot be combined with other modes')
  return new Set(raw as TraceMode[])
}

function writer(vars: EnvRecord): TraceConfig['writer'] {
  const value = text(vars, 'TRACE_WRITER') ?? 'auto'
  if (value !== 'auto' && value !== 'thread' && value !== 'worker') throw new ConfigError('TRACE_WRITER', `expected auto, thread or worker, got "${value}"`)
  return value
}
