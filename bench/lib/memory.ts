/**
 * Memory under a burst of registrations: 100 registrations sent at once to a
 * server process (OWASP argon2id: 19 MiB per hash in flight), then its peak
 * resident memory. Target: under 400 MB (issue 11: 200 at once took the
 * process to 4 GB before the hashing slots bounded the hashes in flight).
 * Each answer must be 201 or a clean 503 (the queue beyond its bound).
 */
import type { ServerSpec } from '../scenarios.ts'
import { startServer } from './processes.ts'

export const MEMORY_TARGET_MB = 400

export interface MemoryResult {
  label: string
  registrations: number
  statuses: Record<string, number>
  baselineMb: number
  peakMb: number
  met: boolean
}

export async function measureRegistrationMemory(label: string, spec: ServerSpec, cpu: number | undefined, registrations = 100): Promise<MemoryResult> {
  const server = await startServer(spec, cpu)
  try {
    const baseline = await server.maxRss()
    const statuses: Record<string, number> = {}
    const run = `${Date.now()}`
    await Promise.all(
      Array.from({ length: registrations }, async (_, i) => {
        const response = await fetch(`${server.url}/api/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Burst', email: `burst-${run}-${i}@example.com`, password: 'burst-password-1', password_confirmation: 'burst-password-1' }),
        })
        await response.arrayBuffer()
        statuses[response.status] = (statuses[response.status] ?? 0) + 1
      }),
    )
    const peak = await server.maxRss()
    const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)
    const clean = Object.keys(statuses).every((status) => status === '201' || status === '503')
    return { label, registrations, statuses, baselineMb: mb(baseline), peakMb: mb(peak), met: clean && mb(peak) < MEMORY_TARGET_MB }
  } finally {
    await server.stop()
  }
}

export function renderMemory(results: MemoryResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.label} | ${r.registrations} at once | ${Object.entries(r.statuses).map(([status, n]) => `${n} x ${status}`).join(', ')} | ${r.baselineMb} | ${r.peakMb} | < ${MEMORY_TARGET_MB} MB | ${r.met ? 'yes' : '**no**'} |`,
  )
  return [
    '### Memory under a burst of registrations',
    '',
    'Peak resident memory (`maxRSS`) of the server process, before and after 100 registrations sent at once (OWASP argon2id, 19 MiB per hash in flight). Every answer must be 201 or a clean 503.',
    '',
    '| server | registrations | answers | RSS before (MB) | peak RSS (MB) | target | met |',
    '| --- | --- | --- | ---: | ---: | --- | --- |',
    ...rows,
  ].join('\n')
}
