/** A configuration value that cannot be used; names the variable. */
export class ConfigError extends Error {
  readonly variable: string
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}
