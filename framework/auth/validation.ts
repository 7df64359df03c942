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
import { normalizedEmail, visibleText } from './text-rules.ts'

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
/** An address to write to (register, forgot-password), normalised (NFC, lower case). */
export const emailField = v.pipe(trimmedText(), maxChars(EMAIL_MAX), emailAddress(), normalizedEmail())
/** An address to look up (login): normalised the same way, not checked for form (an unknown one is simply not found). */
export const loginEmailField = v.pipe(trimmedText(), maxChars(EMAIL_MAX), normalizedEmail())
/** A password being set: no control or invisible character (it could not be typed again reliably). */
export const newPasswordField = v.pipe(text(), minChars(PASSWORD_MIN), maxChars(PASSWORD_MAX), visibleText())
/** A password being checked: only bounded, so that an old one (shorter, or set before the rules above) still logs in. */
export const passwordField = v.pipe(text(), maxChars(PASSWORD_MAX))
export const tokenField = v.pipe(trimmedText(), maxChars(TOKEN_MAX))

// ---------------------------------------------------------------- bodies

type PasswordPair = { password: string; password_confirmation: string }

/** `password_confirmation` must repeat `password` (compared once both are valid). */
const samePassword = namedCheck('confirmed', (input: PasswordPair) => input.password === input.password_confirmation)
const CONFIRMED_PATHS = [['password'], ['password_confirmation']] as const

export const RegisterBody = v.pipe(
  jsonObject({ name: nameField, email: emailField, password: newPasswordField, password_confirmation: text() }),
  v.forward(v.partialCheck(CONFIRMED_PATHS, samePassword), ['password_confirmation']),
)
export const LoginBody = jsonObject({ email: loginEmailField, password: passwordField })
export const RefreshBody = jsonObject({ refresh_token: tokenField })
export const TokenBody = jsonObject({ token: tokenField })
export const EmailBody = jsonObject({ email: emailField })
export const ResetPasswordBody = v.pipe(
  jsonObject({ token: tokenField, password: newPasswordField, password_confirmation: text() }),
  v.forward(v.partialCheck(CONFIRMED_PATHS, samePassword), ['password_confirmation']),
)
