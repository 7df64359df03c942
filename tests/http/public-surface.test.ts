/**
 * The public surface: `svc` exports what app authors write apps with; trace
 * internals live behind `svc/trace`, CLI-only helpers (migration files) in
 * cli/. The entry points are declared once each in package.json `exports`,
 * tsconfig `paths` and the vitest aliases, and the built files exist.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as svc from 'svc'
import * as trace from 'svc/trace'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string) => readFileSync(`${ROOT}/${file}`, 'utf8')

describe('the svc entry', () => {
  it('exports what an app is written with', () => {
    for (const name of ['createApp', 'defineRoutes', 'defineKernel', 'HttpError', 'ValidationError', 'Context', 'authPlugin', 'throttle', 'cors', 'CONN_INFO', 'defaultValidationMessage', 'logUnexpectedError', 'TRACE_HEADER', 'authMigrations']) {
      expect(svc, name).toHaveProperty(name)
    }
  })

  it('does not export trace storage internals or CLI-only helpers', () => {
    for (const name of ['TraceWriter', 'TraceStore', 'Redactor', 'encodeBatch', 'decodeBatch', 'createRecordBuilder', 'buildRecord', 'storeSink', 'createTracer', 'REDACTED', 'renderMigrationFile', 'AUTH_MIGRATION_SOURCES', 'API_KEYS_MIGRATION_SOURCE']) {
      expect(svc, name).not.toHaveProperty(name)
    }
  })

  it('svc/trace has the tracer, its store and the record format', () => {
    for (const name of ['createTracer', 'resolveTraceConfig', 'TraceStore', 'storeSink', 'TraceWriter', 'Redactor', 'encodeBatch', 'decodeBatch', 'REDACTED', 'TRACE_ID_PATTERN']) {
      expect(trace, name).toHaveProperty(name)
    }
  })
})

describe('entry points, declared once each', () => {
  const exportsMap = JSON.parse(read('package.json')).exports as Record<string, { types: string; default: string } | string>
  const subpaths = Object.keys(exportsMap).filter((key) => key !== './package.json')

  it('every exports entry is built (npm test builds first)', () => {
    for (const key of subpaths) {
      const entry = exportsMap[key] as { types: string; default: string }
      expect(existsSync(`${ROOT}/${entry.default}`), `${key} -> ${entry.default}`).toBe(true)
      expect(existsSync(`${ROOT}/${entry.types}`), `${key} -> ${entry.types}`).toBe(true)
    }
  })

  it('tsconfig paths and vitest aliases name the same entries', () => {
    const names = subpaths.map((key) => (key === '.' ? 'svc' : `svc/${key.slice(2)}`)).sort()
    const paths = Object.keys(JSON.parse(read('tsconfig.json')).compilerOptions.paths).sort()
    expect(paths).toEqual(names)
    const aliases = [...read('vitest.config.ts').matchAll(/find: \/\^(svc(?:\\\/[a-z]+)*)\$\//g)].map((match) => match[1]!.replaceAll('\\/', '/')).sort()
    expect(aliases).toEqual(names)
  })
})
