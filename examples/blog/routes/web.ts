/**
 * Routes without a prefix. The health probes (/health/live, /health/ready) and
 * the pages the auth mails link to (/verify-email, /reset-password) are built in.
 */
import { defineRoutes } from 'svc'

export default defineRoutes((r) => {
  r.get('/', function welcome() {
    return {
      name: 'svc blog example',
      endpoints: ['/api/v1/posts', '/api/v2/posts', '/api/v1/posts/archive/{year?}', '/health/ready'],
    }
  })
})
