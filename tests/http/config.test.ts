/**
 * Configuration from a flat environment: defaults that need no editing, and
 * a ConfigError naming the variable for every value that cannot be used.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, resolveConfig } from 'svc'
import { loadEnv } from 'svc/node'
import { tempDir } from '../helpers/app.ts'

describe('resolveConfig', () => {
  it('needs nothing set', () => {
    const config = resolveConfig({})
    expect(config).toMatchObject({
      env: 'development',
      debug: true,
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      jwtSecret: undefined,
      jwtTtl: 3600,
      jwtRefreshTtl: 604800,
      jwtAlgorithm: 'HS256',
      corsOrigins: [],
      tracePrefix: 'svc',
      bodyLimit: 1024 * 1024,
      trustedProxies: [],
      requestTimeoutMs: 30_000,
    })
  })

  it('reads every documented variable', () => {
    const config = resolveConfig({
      APP_ENV: 'production',
      APP_DEBUG: 'false',
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'libsql://db.example.turso.io',
      DATABASE_AUTH_TOKEN: 'token',
      JWT_SECRET: 's'.repeat(32),
      JWT_TTL: '900',
      JWT_REFRESH_TTL: '86400',
      JWT_ALGORITHM: 'RS256',
      CORS_ORIGINS: 'https://a.example, https://b.example',
      TRACE_PREFIX: 'api',
      BODY_LIMIT: '2048',
      TRUSTED_PROXIES: '10.0.0.1',
      REQUEST_TIMEOUT_MS: '5000',
    })
    expect(config).toMatchObject({
      env: 'production',
      debug: false,
      port: 9000,
      host: '0.0.0.0',
      databaseUrl: 'libsql://db.example.turso.io',
      databaseAuthToken: 'token',
      jwtTtl: 900,
      jwtRefreshTtl: 86400,
      jwtAlgorithm: 'RS256',
      corsOrigins: ['https://a.example', 'https://b.example'],
      tracePrefix: 'api',
      bodyLimit: 2048,
      trustedProxies: ['10.0.0.1'],
      requestTimeoutMs: 5000,
    })
  })

  it('debug follows APP_ENV unless APP_DEBUG says otherwise', () => {
    expect(resolveConfig({ APP_ENV: 'production' }).debug).toBe(false)
    expect(resolveConfig({ APP_ENV: 'production', APP_DEBUG: 'true' }).debug).toBe(true)
    expect(resolveConfig({ APP_ENV: 'development', APP_DEBUG: '0' }).debug).toBe(false)
  })

  it.each([
    ['APP_ENV', 'staging', /expected one of development, production, test/],
    ['APP_DEBUG', 'maybe', /expected true or false/],
    ['PORT', 'eighty', /expected a whole number/],
    ['PORT', '70000', /must be between 0 and 65535/],
    ['JWT_SECRET', 'short', /must be at least 32 characters \(got 5\)/],
    ['JWT_TTL', '-5', /expected a whole number/],
    ['JWT_TTL', '0', /must be between 1 and/],
    ['JWT_REFRESH_TTL', '1.5', /expected a whole number/],
    ['JWT_ALGORITHM', 'none', /expected one of HS256, RS256/],
    ['TRACE_PREFIX', 'has space', /expected 1 to 16 letters or digits/],
    ['TRACE_PREFIX', '1abc', /starting with a letter/],
    ['BODY_LIMIT', '1MB', /expected a whole number/],
    ['REQUEST_TIMEOUT_MS', '30s', /expected a whole number/],
    ['REQUEST_TIMEOUT_MS', '10', /must be between 100 and/],
  ])('%s=%j is a ConfigError naming the variable', (variable, value, message) => {
    let thrown: unknown
    try {
      resolveConfig({ [variable]: value })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ConfigError)
    expect((thrown as ConfigError).variable).toBe(variable)
    expect((thrown as ConfigError).message).toMatch(new RegExp(`^${variable}: `))
    expect((thrown as ConfigError).message).toMatch(message)
  })

  it('empty values count as not set', () => {
    expect(resolveConfig({ PORT: '', JWT_SECRET: '  ', DATABASE_URL: '' })).toMatchObject({ port: 8080, jwtSecret: undefined, databaseUrl: undefined })
  })
})

describe('loadEnv', () => {
  it('reads .env, and the process environment wins over it', () => {
    const dir = tempDir('svc-env-')
    try {
      const file = join(dir.path, '.env')
      writeFileSync(file, 'PORT=9001\nTRACE_PREFIX=fromfile\n# comment\nJWT_TTL="900"\n')
      const vars = loadEnv(file, { PORT: '9002', UNSET: undefined })
      expect(vars).toMatchObject({ PORT: '9002', TRACE_PREFIX: 'fromfile', JWT_TTL: '900' })
      expect('UNSET' in vars).toBe(false)
      expect(resolveConfig(vars)).toMatchObject({ port: 9002, tracePrefix: 'fromfile', jwtTtl: 900 })
      expect(loadEnv(join(dir.path, 'missing.env'), {})).toEqual({})
    } finally {
      dir.remove()
    }
  })
})
