/**
 * The document every command prints on stdout when it fails under `--json`
 * (cli/main.ts): the same failure as the `error [E_CODE]: message` and
 * `fix:` lines on stderr, which are still printed. Types only.
 * Compatibility rule: fields are only ever added.
 */

/** `svc <command> --json` that failed: `{ "error": { code, message, fix, exit_code } }`. */
export interface CliErrorJson {
  /** Under `error`, as the HTTP API's error envelope names its failure; a successful document never has this key at the top. */
  error: CliErrorDetailJson
}

export interface CliErrorDetailJson {
  /** The stable code (`E_TRACE_NOT_FOUND`, `E_UNKNOWN_OPTION`); `E_UNEXPECTED` for an error svc did not foresee (a bug, a crash of a dependency). */
  code: string
  /** One line, as on stderr (without the stack `SVC_DEBUG=1` adds there). */
  message: string
  /** What to do about it (the `fix:` line); null when svc has nothing to suggest. */
  fix: string | null
  /** The exit code the command ends with (not 0). */
  exit_code: number
}
