/**
 * The pages the auth mails link to (docs/authentication.md): the mail's link
 * is `{APP_URL}/verify-email?token=...` or
 * `{APP_URL}/reset-password?token=...&email=...`, and without these pages it
 * answered the API's 404. Each page puts the token from its address in a form
 * (escaped by html``, as everything from the query string) and its script
 * posts it to the API route that does the work, showing the answer. A link
 * without its token (cut by a mail client) is refused as any request with a
 * bad query is: 422 in the JSON envelope, naming the field.
 */
import * as v from 'valibot'
import type { Context } from '../../context/context.ts'
import { html } from '../../mail/html.ts'
import type { RouteRegistrar } from '../../router/define-routes.ts'
import { FORM_SCRIPT } from './form-script.ts'
import { htmlPage } from './html-page.ts'
import type { AuthPagePaths } from './page-paths.ts'

const NO_TOKEN = 'The link has no token: open the link from the mail as it is, or ask for a new mail.'

/** The query of both pages: the mail's token, and (reset) the account's address, shown on the page. */
export const AuthPageQuery = v.object({
  token: v.pipe(v.string(NO_TOKEN), v.nonEmpty(NO_TOKEN)),
  email: v.optional(v.string()),
})

/** What the pages answer, for the API description (svc make:openapi). */
export const AuthPage = v.string()

/**
 * The tag each page is documented under (svc make:openapi), by its handler's
 * name: the same whatever path the page is served at (`/account/verify` too),
 * not the page's first path segment, as other routes' tags are.
 */
export const AUTH_PAGE_TAGS: Readonly<Record<string, string | undefined>> = { verifyEmailPage: 'verify-email', resetPasswordPage: 'reset-password' }

type PageContext = Context<string, { query: typeof AuthPageQuery }>

/** Registers the pages at the paths served (none for a page served elsewhere). */
export function registerAuthPages(r: RouteRegistrar, paths: AuthPagePaths): void {
  const page = { contentType: 'text/html' }
  const { verifyEmail, resetPassword } = paths
  if (verifyEmail !== undefined) {
    const endpoint = `${paths.apiBase}/auth/verify-email`
    r.get(verifyEmail, function verifyEmailPage(c: PageContext) {
      return renderVerifyEmail(endpoint, c.query.token)
    }).query(AuthPageQuery).response(AuthPage, page)
  }
  if (resetPassword !== undefined) {
    const endpoint = `${paths.apiBase}/auth/reset-password`
    r.get(resetPassword, function resetPasswordPage(c: PageContext) {
      return renderResetPassword(endpoint, c.query.token, c.query.email ?? '')
    }).query(AuthPageQuery).response(AuthPage, page)
  }
}

/** GET /verify-email?token=...: posts the token to POST /api/auth/verify-email as soon as it opens. */
function renderVerifyEmail(endpoint: string, token: string): Response {
  return htmlPage({
    title: 'Verify your email address',
    body: html`<form data-endpoint="${endpoint}" data-submit-on-load>
<input type="hidden" name="token" value="${token}">
<button type="submit">Verify my email address</button>
</form>
<div id="outcome" role="status"></div>
<noscript><p class="error">This page needs JavaScript to send the token.</p></noscript>`,
    script: FORM_SCRIPT,
  })
}

/** GET /reset-password?token=...&email=...: asks for the new password and posts it to POST /api/auth/reset-password. */
function renderResetPassword(endpoint: string, token: string, email: string): Response {
  // The address is shown, and given to password managers (autocomplete="username"); it has no name, so it is not sent.
  const account = email === '' ? html`` : html`<label for="email">Account</label>
<input id="email" type="email" value="${email}" autocomplete="username" readonly>`
  return htmlPage({
    title: 'Choose a new password',
    body: html`<form data-endpoint="${endpoint}">
<input type="hidden" name="token" value="${token}">
${account}
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<label for="password_confirmation">New password, again</label>
<input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required>
<button type="submit">Reset my password</button>
</form>
<div id="outcome" role="status"></div>
<noscript><p class="error">This page needs JavaScript to send the form.</p></noscript>`,
    script: FORM_SCRIPT,
  })
}
