/**
 * Runs a Postman collection with newman (in this process, no reporter
 * output), against `baseUrl`, and gives back what ran: each request's
 * answer and each assertion's outcome.
 */
import { createRequire } from 'node:module'

export interface NewmanExecution {
  item: { name: string }
  request: { method: string; url: { toString(): string } }
  response?: { code: number }
  assertions?: Array<{ assertion: string; error?: { message: string } }>
  requestError?: { message: string }
}

export interface NewmanSummary {
  run: {
    stats: Record<'requests' | 'assertions' | 'testScripts' | 'prerequestScripts', { total: number; failed: number }>
    failures: Array<{ error: { message: string; test?: string }; source?: { name?: string } }>
    executions: NewmanExecution[]
  }
}

interface Newman {
  run(options: Record<string, unknown>, callback: (error: Error | null, summary: NewmanSummary) => void): void
}

const newman = createRequire(import.meta.url)('newman') as Newman

export function runCollection(collection: unknown, baseUrl: string): Promise<NewmanSummary> {
  return new Promise((resolve, reject) => {
    newman.run({ collection, envVar: [{ key: 'baseUrl', value: baseUrl }], reporters: [], timeoutRequest: 30_000 }, (error, summary) =>
      error === null ? resolve(summary) : reject(error),
    )
  })
}

/** One line per failure, for an assertion message. */
export function failuresOf(summary: NewmanSummary): string[] {
  return summary.run.failures.map((failure) => `${failure.source?.name ?? '?'}: ${failure.error.test ?? ''} ${failure.error.message}`)
}
