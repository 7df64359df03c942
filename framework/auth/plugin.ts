/**
 * `authPlugin()`: the auth routes, the pages the auth mails link to
 * (`GET /verify-email`, `GET /reset-password`; `pages`), `GET
 * /.well-known/jwks.json` (RS256), and
 * the aliases `auth`, `auth:<roles>`, `verified`, `throttle:<max>,<minutes>`,
 * `apikey` and `apikey:<scopes>`. Apps run by the `svc` CLI get it by default;
 * with `createApp` elsewhere, add it yourself:
 *
 * @example
 * const app = createApp({ config, database, api, plugins: [authPlugin({ mailer })] })
 */
import * as v from 'valibot'
import type { AppPlugin, AppPluginSpec } from '../app/create-app.ts'
import type { AppServices } from '../middleware/aliases.ts'
import { consoleMailer, type Mailer } from '../mail/index.ts'
import { apiKey, scopedApiKey } from '../middleware/api-key/index.ts'
import { databaseThrottleStore } from '../middleware/throttle/database-store.ts'
import { parseThrottleArgs, throttle } from '../middleware/throttle/index.ts'
import { memoryThrottleStore } from '../middleware/throttle/memory-store.ts'
import type { ThrottleStore } from '../middleware/throttle/store.ts'
import { defineRoutes } from '../router/define-routes.ts'
import { systemClock, type Clock } from './clock.ts'
import type { AuthCore } from './core.ts'
import { importSigningKeys, resolveKeyMaterial, type JwtKeyMaterial, type SigningKeys } from './keys.ts'
import { limitHashing } from './hashing-slots.ts'
import { createLockout } from './lockout.ts'
import { authenticate, requireVerifiedEmail } from './middleware.ts'
import { createPasswordHasher, portableArgon2id, type Argon2id, type PasswordHasher } from './passwords.ts'
import { registerAuthPages } from './pages/auth-pages.ts'
import { authPagePaths } from './pages/page-paths.ts'
import { authRoutes } from './routes.ts'
import { resolveAuthSettings } from './settings.ts'
import { createTokenService } from './tokens.ts'

export interface AuthPluginOptions {
  /** Where verification and reset mails go; by default the app's mailer (`createApp({ mailer })`), else `consoleMailer()`. */
  mailer?: Mailer
  /** Time as auth sees it (tests move it). */
  clock?: Clock
  /** RS256 PEM keys read from files (`storage/keys/`); environment values win. */
  keys?: JwtKeyMaterial
  /**
   * The argon2id function passwords are hashed with: `portableArgon2id` by
   * default (every runtime); svc/node's `nativeArgon2id` on Node (the `svc`
   * CLI passes it). Same PHC strings either way.
   */
  argon2id?: Argon2id
  /** Replaces the argon2id hasher built from `PASSWORD_HASH_*` (it is still bounded by the hashing slots). */
  hasher?: PasswordHasher
  /** Replaces the store chosen by `THROTTLE_STORE`. */
  throttleStore?: ThrottleStore
  /**
   * Serve the pages the auth mails link to (default true): each link under
   * `APP_URL` is served at its path (`/verify-email`, `/reset-password` by
   * default); a link set elsewhere (`AUTH_VERIFY_EMAIL_URL`) is not. False:
   * none (the app serves its own). See docs/authentication.md.
   */
  pages?: boolean
}

/** The public keys that verify RS256 tokens (RFC 7517), answered as they are, without the envelope. */
const JwkSet = v.object({ keys: v.array(v.looseObject({ kty: v.string(), kid: v.string(), alg: v.string(), use: v.string() })) })

export const AUTH_PLUGIN_NAME = 'auth'
const AUTH_PLUGIN = Symbol.for('svc.auth-plugin')

export function authPlugin(options: AuthPluginOptions = {}): AppPluginSpec {
  const build = (services: AppServices): AppPlugin => {
    const { config, database } = services
    const settings = resolveAuthSettings(config)
    const clock = options.clock ?? systemClock

    // With a database the app serves requests: bad key settings stop it now.
    // Without one (route:list) only the route table is built.
    let keys: () => Promise<SigningKeys>
    if (database !== undefined) {
      const imported = importSigningKeys(config, resolveKeyMaterial(config, options.keys))
      imported.catch(() => {})
      keys = () => imported
    } else {
      let lazy: Promise<SigningKeys> | undefined
      keys = () => (lazy ??= Promise.resolve().then(() => importSigningKeys(config, resolveKeyMaterial(config, options.keys))))
    }

    const throttleStore =
      options.throttleStore ??
      (settings.throttleStore === 'database' && database !== undefined ? databaseThrottleStore(database) : memoryThrottleStore())
    // Locks survive a restart and are shared by every process, for known and unknown addresses alike.
    const lockoutStore = database !== undefined ? databaseThrottleStore(database) : memoryThrottleStore()
    const argon2id = options.argon2id ?? portableArgon2id
    const hasher = limitHashing(options.hasher ?? createPasswordHasher(settings.password, argon2id), {
      concurrency: settings.hashConcurrency ?? argon2id.concurrency,
      queue: settings.hashQueue,
    })
    const core: AuthCore = {
      config,
      database,
      settings,
      clock,
      keys,
      tokens: createTokenService(config, keys, clock, settings.verifyCacheSize),
      hasher,
      mailer: options.mailer ?? services.mailer ?? consoleMailer(),
      throttleStore,
      lockout: createLockout(lockoutStore, { attempts: settings.lockoutAttempts, minutes: settings.lockoutMinutes }),
    }

    return {
      name: AUTH_PLUGIN_NAME,
      aliases: {
        auth: (roles) => authenticate(core, roles),
        verified: () => requireVerifiedEmail,
        throttle: (args) => throttle({ ...parseThrottleArgs(args), store: throttleStore, clock }),
        apikey: (scopes) => {
          if (scopes.length > 0) return scopedApiKey({ scopes, clock })
          if (config.apiKey === undefined) throw new Error('API_KEY is not set; the apikey alias compares x-api-key with it')
          return apiKey({ key: config.apiKey })
        },
      },
      api: authRoutes(core),
      ...(database === undefined
        ? {}
        : {
            healthChecks: {
              // A key that passed the start-up checks but cannot be imported shows up in /health/ready.
              jwt_keys: async () => ({ algorithm: (await keys()).algorithm }),
              // Which argon2id runs, and how busy hashing is (a full queue answers 503).
              password_hashing: async () => ({ argon2id: argon2id.name, ...hasher.stats() }),
            },
          }),
      web: defineRoutes((r) => {
        if (options.pages !== false) registerAuthPages(r, authPagePaths(settings))
        if (config.jwtAlgorithm === 'RS256') {
          r.get('/.well-known/jwks.json', async function jwks() {
            const { jwks } = await keys()
            return new Response(JSON.stringify(jwks), {
              headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
            })
          }).response(JwkSet, { envelope: false })
        }
      }),
    }
  }
  return Object.assign(build, { [AUTH_PLUGIN]: true })
}

/** True for what `authPlugin()` returns (or a plugin object named `auth`). */
export function isAuthPlugin(spec: AppPluginSpec): boolean {
  return typeof spec === 'function' ? AUTH_PLUGIN in spec : spec.name === AUTH_PLUGIN_NAME
}
