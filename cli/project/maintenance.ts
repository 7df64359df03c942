/** A project's maintenance state: where it lives and what `svc down` accepts (see docs/deployment.md). */
import { resolve } from 'node:path'
import { sha256Hex } from '../../framework/auth/digest.ts'
import type { AppConfig } from '../../framework/index.ts'
import { isAllowEntry, type MaintenanceState } from '../../framework/middleware/maintenance/index.ts'
import type { MaintenanceJson } from '../contract/operations.ts'
import { CliError } from '../output/cli-error.ts'
import type { Project } from './project.ts'

/** `MAINTENANCE_FILE` (relative to the project folder; a shared volume for several hosts), else `<storage>/maintenance.json`. */
export function maintenancePath(project: Project, config: AppConfig): string {
  const configured = config.vars.MAINTENANCE_FILE?.trim()
  return configured ? resolve(project.root, configured) : resolve(project.storageDir, 'maintenance.json')
}

/** The `--allow` values, each checked: an IPv4 or IPv6 address, or an IPv4 range. */
export function checkAllowList(entries: readonly string[]): string[] {
  const allow = entries.map((entry) => entry.trim())
  const bad = allow.filter((entry) => !isAllowEntry(entry))
  if (bad.length > 0) {
    throw new CliError('E_BAD_OPTION', `--allow takes an IP address or an IPv4 range, got "${bad[0]}"`, {
      hint: 'for example --allow=203.0.113.7 --allow=10.0.0.0/8 --allow=::1',
    })
  }
  return [...new Set(allow)]
}

/** The secret is also a URL path segment (`/<secret>` sets the bypass cookie): URL-safe characters only. */
export function checkBypassSecret(secret: string): void {
  if (!/^[A-Za-z0-9._~-]{8,}$/.test(secret)) {
    throw new CliError('E_BAD_OPTION', '--secret takes at least 8 letters, digits or . _ ~ -', {
      hint: 'for example --secret=$(openssl rand -hex 16)',
    })
  }
}

export const secretDigest = sha256Hex

export function maintenanceJson(file: string, wasDown: boolean, state: MaintenanceState | undefined): MaintenanceJson {
  return {
    down: state !== undefined,
    was_down: wasDown,
    file,
    state:
      state === undefined
        ? null
        : { since: state.since, message: state.message, retry: state.retry, allow: state.allow, secret: state.secret_sha256 !== undefined },
  }
}
