/**
 * The JSON contract of the operations commands (maintenance, configuration
 * and environment caches, doctor, optimize, deploy): the document each prints
 * with `--json`. Types only; schemas.json is generated from them.
 *
 * | Command                    | Document          |
 * |----------------------------|-------------------|
 * | down, up                   | MaintenanceJson   |
 * | config:cache, config:clear | ConfigCacheJson   |
 * | env:cache                  | EnvCacheJson      |
 * | env:check                  | EnvCheckJson      |
 * | env:switch                 | EnvSwitchJson     |
 * | optimize (--clear)         | OptimizeJson      |
 * | doctor                     | DoctorJson        |
 * | deploy (--init)            | DeployJson        |
 *
 * Compatibility rule: fields are only ever added.
 */

/** Maintenance mode after `down` or `up`. */
export interface MaintenanceJson {
  down: boolean
  /** Whether it was down before the command ran. */
  was_down: boolean
  /** The state file (absolute). */
  file: string
  /** While down: what requests are answered with and who gets through. */
  state: {
    since: string
    message: string
    retry: number
    allow: string[]
    /** Whether a bypass secret is set (the secret itself is never printed back). */
    secret: boolean
  } | null
}

/** `config:cache` (written) and `config:clear` (removed). */
export interface ConfigCacheJson {
  /** The cache file (absolute). */
  file: string
  /** `written`: a new signed cache; `removed`: it was deleted; `absent`: there was none to remove. */
  action: 'written' | 'removed' | 'absent'
  /** The variable the signing key is derived from (APP_KEY or JWT_SECRET); null when removing. */
  key_source: 'APP_KEY' | 'JWT_SECRET' | null
}

/** `env:cache`: the environment written without its sensitive values. */
export interface EnvCacheJson {
  file: string
  /** Names written, sorted. */
  kept: string[]
  /** Names left out because they look sensitive (secret, key, password, token, private). */
  left_out: string[]
}

export interface EnvProblemJson {
  /** The variable (or the file, for a missing .env). */
  variable: string
  /** `error`: the app would refuse it (or refuse to start); `warning`: works, but likely a mistake. */
  level: 'error' | 'warning'
  message: string
  /** What to do about it. */
  fix: string
}

/** `env:check`: every problem of `.env` together with the environment, against what the app reads. */
export interface EnvCheckJson {
  /** The .env file checked (absolute). */
  file: string
  /** Whether it exists. */
  exists: boolean
  ok: boolean
  problems: EnvProblemJson[]
}

/** `env:switch <env>`. */
export interface EnvSwitchJson {
  environment: string
  /** The file made active (`.env.<env>`). */
  source: string
  /** The active file, now a copy of source. */
  target: string
  /** Where the previous .env was kept; null when there was none. */
  backup: string | null
}

/** `optimize` (cached) and `optimize --clear` (removed). */
export interface OptimizeJson {
  action: 'cached' | 'cleared'
  /** Each cache and what was done with it. */
  caches: Array<{ name: 'config' | 'routes' | 'modules'; file: string; done: boolean; detail: string }>
}

export interface DoctorCheckJson {
  /** Stable name: `node`, `env_file`, `secret`, `debug`, `database`, `migrations`, `storage`, `caches`, `traces`, `https`, `maintenance`, `config_cache`. */
  name: string
  status: 'ok' | 'warn' | 'fail'
  message: string
  /** What to do; null when ok. */
  fix: string | null
}

/** `doctor`: every check; the command exits 1 when any failed. */
export interface DoctorJson {
  /** Whether the checks were those of production (`--prod`, or APP_ENV=production). */
  production: boolean
  ok: boolean
  summary: { ok: number; warn: number; fail: number }
  checks: DoctorCheckJson[]
}

/** `deploy --init` (the file written) and `deploy` (the steps run). */
export interface DeployJson {
  /** The deploy configuration (absolute). */
  file: string
  /** `dry_run`: `--dry-run`, nothing ran (it said `deployed`). */
  action: 'initialised' | 'deployed' | 'failed' | 'dry_run'
  steps: Array<{
    name: string
    run: string
    /** `skipped`: not run: an earlier step failed, or `--init` / `--dry-run` only listed it. */
    status: 'ok' | 'failed' | 'skipped'
    exit_code: number | null
    duration_ms: number | null
  }>
}
