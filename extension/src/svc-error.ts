/** A custom request's failure as the CLI reported it (its code and fix), and how the views word any error. No VS Code import. */

/** A custom request's failure, with the CLI's code and hint. */
export class SvcError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hint: string | null,
  ) {
    super(message)
  }
}

export function describeError(error: unknown): string {
  if (error instanceof SvcError) return `${error.message}${error.hint ? ` (fix: ${error.hint})` : ''}`
  return error instanceof Error ? error.message : String(error)
}
