/**
 * Health probes: `/health/live` says the process answers; `/health/ready`
 * runs every check (the database's `select 1` among them) and answers 503
 * naming each one that failed, or 200 with `status: 'degraded'` when a check
 * works but is behind (traces accepted and not written).
 */
import * as v from 'valibot'
import type { Database } from '../database/database.ts'
import { HttpError } from '../http/http-error.ts'
import { defineRoutes, type RouteDefinition } from '../router/define-routes.ts'

/**
 * Resolves when healthy (optionally with details); throws when not. Details
 * with `status: 'degraded'` (and a `reason`) say it works but is behind: the
 * probe still answers 200, with `status: 'degraded'`.
 */
export type HealthCheck = () => Promise<Record<string, unknown> | void>

export interface CheckResult {
  status: 'ok' | 'degraded' | 'fail'
  duration_ms: number
  error?: string
  [detail: string]: unknown
}

const CHECK_TIMEOUT_MS = 3000

// What the probes answer in `data`, for the API description.
const Liveness = v.object({ status: v.literal('ok') })
const Readiness = v.object({
  status: v.literal('ok'),
  checks: v.record(v.string(), v.looseObject({ status: v.picklist(['ok', 'fail']), duration_ms: v.number(), error: v.optional(v.string()) })),
})

export function databaseCheck(db: Database): HealthCheck {
  return async () => {
    await db.execute('select 1')
  }
}

export async function runChecks(checks: Record<string, HealthCheck>): Promise<Record<string, CheckResult>> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
      const started = performance.now()
      let timer: ReturnType<typeof setTimeout> | undefined
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)
        })
        const details = await Promise.race([check(), timeout])
        const status = details?.status === 'degraded' ? 'degraded' : 'ok'
        return [name, { ...details, status, duration_ms: elapsed(started) }]
      } catch (error) {
        return [name, { status: 'fail', duration_ms: elapsed(started), error: (error as Error).message ?? String(error) }]
      } finally {
        clearTimeout(timer)
      }
    }),
  )
  return Object.fromEntries(entries)
}

export function healthRoutes(checks: Record<string, HealthCheck>): RouteDefinition {
  return defineRoutes((r) => {
    r.get('/health/live', function liveness() {
      return { status: 'ok' }
    }).response(Liveness)
    r.get('/health/ready', async function readiness() {
      const results = await runChecks(checks)
      const failing = Object.keys(results).filter((name) => results[name]!.status === 'fail')
      if (failing.length > 0) {
        throw new HttpError(503, `Service Unavailable: ${failing.join(', ')} failed`, {
          details: { data: { status: 'fail', checks: results } },
        })
      }
      const degraded = Object.values(results).some((result) => result.status === 'degraded')
      return { status: degraded ? 'degraded' : 'ok', checks: results }
    })
      .response(Readiness)
      .errors({ 503: 'A check failed: `error` names it, `data.checks` gives each check; or the app is down for maintenance (svc down), with Retry-After' })
  })
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000
}
