/** A configuration value that cannot be used; names the variable. */
export class ConfigError extends Error {
  readonly variable: string
  /** What is wrong with it, without the fix. */
  readonly problem: string
  /** The fix through svc's CLI, where there is one (`run \`svc key:generate\``): a runtime without the CLI (Workers) says its own. */
  readonly cliFix: string | undefined
  constructor(variable: string, problem: string, cliFix?: string) {
    super(`${variable}: ${problem}${cliFix === undefined ? '' : `; ${cliFix}`}`)
    this.name = 'ConfigError'
    this.variable = variable
    this.problem = problem
    this.cliFix = cliFix
  }
}
