/** Routes without a prefix. The health probes (/health/live, /health/ready) are built in. */
import { defineRoutes } from 'svc'
import { Page, PageQuery, resetPasswordPage, verifyEmailPage } from '../app/pages/auth-pages.ts'

export default defineRoutes((r) => {
  r.get('/', function welcome() {
    return {
      name: 'svc blog example',
      endpoints: ['/api/v1/posts', '/api/v2/posts', '/api/v1/posts/archive/{year?}', '/health/ready'],
    }
  })
  // The pages the auth mails link to (AUTH_VERIFY_EMAIL_URL, AUTH_RESET_PASSWORD_URL): HTML that posts to /api/auth.
  const page = { contentType: 'text/html' }
  r.get('/verify-email', verifyEmailPage).query(PageQuery).response(Page, page)
  r.get('/reset-password', resetPasswordPage).query(PageQuery).response(Page, page)
})
