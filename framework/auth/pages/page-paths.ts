/**
 * Where the auth pages are served, read from the links the mails carry
 * (`AUTH_VERIFY_EMAIL_URL`, `AUTH_RESET_PASSWORD_URL`). A link under `APP_URL`
 * names a page of this app: it is served at the link's path below `APP_URL`'s
 * (`/verify-email` for the default). A link elsewhere (your own front end)
 * names a page this app does not serve. A link whose token is not the query's
 * `token` (`/verify/{token}`, `?t={token}`) or whose path is under /api is not
 * served either: the page reads `?token=`, and the API's paths are the API's.
 */
import { API_PREFIX } from '../../router/path-grammar.ts'
import type { AuthSettings } from '../settings.ts'

export interface AuthPagePaths {
  /** The verification page's route path; undefined: not served here. */
  verifyEmail: string | undefined
  /** The reset page's route path; undefined: not served here. */
  resetPassword: string | undefined
  /** Where the pages post, as the browser sees it: `APP_URL`'s path, then /api. */
  apiBase: string
}

export function authPagePaths(settings: Pick<AuthSettings, 'appUrl' | 'verifyEmailUrl' | 'resetPasswordUrl'>): AuthPagePaths {
  const base = parse(settings.appUrl)
  const basePath = base === undefined ? '' : base.pathname.replace(/\/+$/, '')
  const verifyEmail = pathOnApp(settings.verifyEmailUrl, base, basePath)
  const resetPassword = pathOnApp(settings.resetPasswordUrl, base, basePath)
  return {
    verifyEmail,
    // Both links naming one page: it is the verification page (the first), served once.
    resetPassword: resetPassword === verifyEmail ? undefined : resetPassword,
    apiBase: `${basePath}${API_PREFIX}`,
  }
}

function pathOnApp(link: string, base: URL | undefined, basePath: string): string | undefined {
  const url = parse(link)
  if (url === undefined || base === undefined || url.origin !== base.origin) return undefined
  if (url.searchParams.get('token') !== '{token}' || url.pathname.includes('%7B')) return undefined
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined
  const path = url.pathname.slice(basePath.length) || '/'
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) return undefined
  return path
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}
