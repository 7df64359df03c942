/** What the servers say at start when production runs with APP_DEBUG on (a `.env` copied from development keeps it). */
export const DEBUG_IN_PRODUCTION =
  'APP_DEBUG is on with APP_ENV=production: error responses carry exception messages and stack traces. Set APP_DEBUG=false (svc doctor --prod checks the rest).'
