/**
 * Environments: a base URL per place the app runs (local, staging...), used
 * by Send request, Edit and send, Replay on a server and Copy as curl. An
 * environment is production when it says so (`"production": true`) or its
 * name starts with "prod": sending there asks first. No VS Code import.
 */
export interface Environment {
  name: string
  baseUrl: string
  production: boolean
}

/** `svc.environments` as written by the user; `svc.baseUrl` (the older setting) is the default "local". */
export function readEnvironments(setting: unknown, baseUrl: string): Environment[] {
  const out: Environment[] = []
  if (Array.isArray(setting)) {
    for (const entry of setting) {
      if (typeof entry !== 'object' || entry === null) continue
      const { name, baseUrl: url, production } = entry as Record<string, unknown>
      if (typeof name !== 'string' || name.trim() === '' || typeof url !== 'string' || !isHttpUrl(url)) continue
      if (out.some((environment) => environment.name === name.trim())) continue
      out.push({ name: name.trim(), baseUrl: trimSlash(url.trim()), production: production === true || (production === undefined && /^prod/i.test(name.trim())) })
    }
  }
  if (out.length === 0) out.push({ name: 'local', baseUrl: trimSlash(isHttpUrl(baseUrl) ? baseUrl : 'http://127.0.0.1:8080'), production: false })
  return out
}

/** The environment named `name`, else the first. */
export function activeEnvironment(environments: Environment[], name: string | undefined): Environment {
  return environments.find((environment) => environment.name === name) ?? environments[0]!
}

/** `url` moved to `environment`: its path and query kept, its origin replaced. */
export function onEnvironment(url: string, environment: Environment): string {
  try {
    const parsed = new URL(url)
    return `${environment.baseUrl}${parsed.pathname}${parsed.search}`
  } catch {
    return `${environment.baseUrl}${url.startsWith('/') ? url : `/${url}`}`
  }
}

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol)
  } catch {
    return false
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
