/**
 * `svc/regression`: what the tests written by `svc log:replay <id> --test`
 * call. Builds the project's app from the current code, sends the recorded
 * request in process, and compares the answer with the recorded one under
 * the volatile-field rule of docs/traces.md.
 *
 * @example
 * const diff = await replayRecorded(projectDir, recorded)
 * expect(diff.changed).toBe(false)
 */
import type { ResponseDiffJson } from '../contract/traces.ts'
import { findProject } from '../project/project.ts'
import { compareResponses } from './compare.ts'
import { ReplayTarget } from './replay.ts'

export interface RecordedCase {
  trace_id: string
  request: { method: string; path: string; headers: Record<string, string>; body: string | null }
  response: { status: number; headers: Record<string, string>; body: unknown; truncated: boolean }
  /** Sign a fresh access token for this user (development and test only). */
  as?: string
}

export async function replayRecorded(projectDir: string, recorded: RecordedCase): Promise<ResponseDiffJson> {
  const target = new ReplayTarget(findProject(projectDir), { load: { trace: false } })
  try {
    const headers = { ...recorded.request.headers }
    if (recorded.as !== undefined) headers.authorization = `Bearer ${await target.tokenFor({ email: recorded.as })}`
    const response = await target.send({
      method: recorded.request.method,
      url: `http://localhost${recorded.request.path}`,
      headers,
      body: recorded.request.body,
    })
    return compareResponses(
      { status: recorded.response.status, headers: recorded.response.headers, body: recorded.response.body, truncated: recorded.response.truncated },
      { status: response.status, headers: response.headers, body: response.body },
    )
  } finally {
    await target.close()
  }
}

export { compareResponses } from './compare.ts'
export type { ResponseDiffJson } from '../contract/traces.ts'
