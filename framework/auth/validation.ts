/**
 * Input rules of the auth routes. Hand-written rather than a schema so that
 * each field gets one plain message ("The email field is required.") for
 * each way it can be wrong: missing, not a string, too long, malformed.
 */
import { ValidationError, type FieldErrors } from '../http/http-error.ts'

/** Passwords: at least 8 characters, at most 256 (NIST: allow at least 64), no composition rules. */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 256
export const NAME_MAX = 255
export const EMAIL_MAX = 254
const TOKEN_MAX = 4096
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/

type Rule = (value: string, field: string) => string | undefined

class Checker {
  readonly errors: FieldErrors = {}
  constructor(private readonly body: Record<string, unknown>) {}

  /** A required string, trimmed when `trim`; records the first failing rule. */
  string(field: string, options: { trim?: boolean; label?: string; rules?: Rule[] } = {}): string {
    const label = options.label ?? field.replaceAll('_', ' ')
    const raw = this.body[field]
    if (raw === undefined || raw === null || raw === '') return this.fail(field, `The ${label} field is required.`)
    if (typeof raw !== 'string') return this.fail(field, `The ${label} field must be a string.`)
    const value = options.trim ? raw.trim() : raw
    if (value === '') return this.fail(field, `The ${label} field is required.`)
    for (const rule of options.rules ?? []) {
      const message = rule(value, label)
      if (message !== undefined) return this.fail(field, message)
    }
    return value
  }

  raw(field: string): unknown {
    return this.body[field]
  }

  fail(field: string, message: string): string {
    ;(this.errors[field] ??= []).push(message)
    return ''
  }

  done(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationError(this.errors)
  }
}

const max = (limit: number): Rule => (value, label) =>
  length(value) > limit ? `The ${label} field must not be greater than ${limit} characters.` : undefined
const min = (limit: number): Rule => (value, label) =>
  length(value) < limit ? `The ${label} field must be at least ${limit} characters.` : undefined
const email: Rule = (value, label) => (EMAIL.test(value) ? undefined : `The ${label} field must be a valid email address.`)

function length(value: string): number {
  let count = 0
  for (const _ of value) count++
  return count
}

function checker(body: unknown): Checker {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError({ body: ['The request body must be a JSON object.'] })
  }
  return new Checker(body as Record<string, unknown>)
}

function newPassword(check: Checker): string {
  const password = check.string('password', { rules: [min(PASSWORD_MIN), max(PASSWORD_MAX)] })
  const confirmation = check.raw('password_confirmation')
  if (confirmation === undefined || confirmation === null || confirmation === '') {
    check.fail('password_confirmation', 'The password confirmation field is required.')
  } else if (typeof confirmation !== 'string') {
    check.fail('password_confirmation', 'The password confirmation field must be a string.')
  } else if (password !== '' && confirmation !== password) {
    check.fail('password_confirmation', 'The password confirmation does not match.')
  }
  return password
}

export interface RegisterInput {
  name: string
  email: string
  password: string
}

export function validateRegister(body: unknown): RegisterInput {
  const check = checker(body)
  const name = check.string('name', { trim: true, rules: [max(NAME_MAX)] })
  const address = check.string('email', { trim: true, rules: [max(EMAIL_MAX), email] })
  const password = newPassword(check)
  check.done()
  return { name, email: address, password }
}

export function validateLogin(body: unknown): { email: string; password: string } {
  const check = checker(body)
  const address = check.string('email', { trim: true, rules: [max(EMAIL_MAX)] })
  const password = check.string('password', { rules: [max(PASSWORD_MAX)] })
  check.done()
  return { email: address, password }
}

export function validateRefresh(body: unknown): { refresh_token: string } {
  const check = checker(body)
  const token = check.string('refresh_token', { trim: true, label: 'refresh token', rules: [max(TOKEN_MAX)] })
  check.done()
  return { refresh_token: token }
}

export function validateToken(body: unknown): { token: string } {
  const check = checker(body)
  const token = check.string('token', { trim: true, rules: [max(TOKEN_MAX)] })
  check.done()
  return { token }
}

export function validateEmail(body: unknown): { email: string } {
  const check = checker(body)
  const address = check.string('email', { trim: true, rules: [max(EMAIL_MAX), email] })
  check.done()
  return { email: address }
}

export function validateResetPassword(body: unknown): { token: string; password: string } {
  const check = checker(body)
  const token = check.string('token', { trim: true, rules: [max(TOKEN_MAX)] })
  const password = newPassword(check)
  check.done()
  return { token, password }
}
