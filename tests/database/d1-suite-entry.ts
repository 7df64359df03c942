/** The shared driver suite on a D1 binding: bundled for workerd's platform and run by d1-runner.mjs. */
import { d1Database, type D1DatabaseBinding } from 'svc/workers'
import { runDriverSuite, type SuiteResult } from './driver-suite.ts'

export function run(binding: D1DatabaseBinding): Promise<SuiteResult[]> {
  return runDriverSuite(d1Database(binding))
}
