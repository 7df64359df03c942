/**
 * The request bodies of the auth routes, as valibot schemas declared on the
 * routes (`.body(RegisterBody)`): validated before the handler, listed by
 * `route:list`, read by OpenAPI. Messages come from svc's one message style
 * (validation/messages.ts), e.g. "The email field is required.".
 *
 * Field rules live in the field schemas below (`nameField`, `emailField`,
 * ...): add a rule to a field's pipe and every route using the field gets it.
 */
import * as v from 'valibot'
import { namedCheck } from '../validation/issues.ts'
import { emailAddress, jsonObject, maxChars, minChars } from '../validation/rules.ts'
import { normalizeEmail, visibleText } from './text-rules.ts'

/** Passwords: at least 8 characters, at most 256 (NIST: allow at least 64), no composition rules. */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 256
export const NAME_MAX = 255
export const EMAIL_MAX = 254
export const TOKEN_MAX = 4096

// ---------------------------------------------------------------- fields

/** A required string: missing, null or "" is `required`, another type is `type`. */
const text = () => v.pipe(v.string(), v.nonEmpty())
/**
 * A required string, surrounding whitespace removed first (so "   " is
 * `required`), with no control or invisible character left (text-rules.ts).
 */
const trimmedText = () => v.pipe(v.string(), v.trim(), v.nonEmpty(), visibleText())

export const nameField = v.pipe(trimmedText(), maxChars(NAME_MAX))
/** An address to write to (register, forgot-password); the body normalises it (`withNormalizedEmail`). */
export const emailField = v.pipe(trimmedText(), maxChars(EMAIL_MAX), emailAddress())
/** An address to look up (login): not checked for form (an unknown one is simply not found); normalised the same way. */
export const loginEmailField = v.pipe(trimmedText(), maxChars(EMAIL_MAX))
/** A password being set: no control or invisible character (it could not be typed again reliably). */
export const newPasswordField = v.pipe(text(), minChars(PASSWORD_MIN), maxChars(PASSWORD_MAX), visibleText())
/** A password being checked: only bounded, so that an old one (shorter, or set before the rules above) still logs in. */
export const passwordField = v.pipe(text(), maxChars(PASSWORD_MAX))
export const tokenField = v.pipe(trimmedText(), maxChars(TOKEN_MAX))

// ---------------------------------------------------------------- bodies

/**
 * The body's `email` in its one stored form (NFC, lower case), once the whole
 * body is valid: a transformation inside the field would stop the body's
 * other checks (the password confirmation) whenever the address is invalid.
 */
const withNormalizedEmail = <T extends { email: string }>() => v.transform((body: T): T => ({ ...body, email: normalizeEmail(body.email) }))

type PasswordPair = { password: string; password_confirmation: string }

/** `password_confirmation` must repeat `password` (compared once both are valid). */
const samePassword = namedCheck('confirmed', (input: PasswordPair) => input.password === input.password_confirmation)
const CONFIRMED_PATHS = [['password'], ['password_confirmation']] as const

export const RegisterBody = v.pipe(
  jsonObject({ name: nameField, email: emailField, password: newPasswordField, password_confirmation: text() }),
  v.forward(v.partialCheck(CONFIRMED_PATHS, samePassword), ['password_confirmation']),
  withNormalizedEmail(),
)
export const LoginBody = v.pipe(jsonObject({ email: loginEmailField, password: passwordField }), withNormalizedEmail())
export const RefreshBody = jsonObject({ refresh_token: tokenField })
export const TokenBody = jsonObject({ token: tokenField })
export const EmailBody = v.pipe(jsonObject({ email: emailField }), withNormalizedEmail())
export const ResetPasswordBody = v.pipe(
  jsonObject({ token: tokenField, password: newPasswordField, password_confirmation: text() }),
  v.forward(v.partialCheck(CONFIRMED_PATHS, samePassword), ['password_confirmation']),
)
