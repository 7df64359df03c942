/**
 * The mails of the auth flows, rendered to text and HTML like any app mail
 * (`defineMail`), and sent through the app's mailer: with `MAIL_QUEUE=true`
 * they go through the queue.
 */
import { html } from '../mail/html.ts'
import { defineMail } from '../mail/define-mail.ts'

export interface VerifyEmailData {
  name: string
  url: string
  token: string
  minutes: number
}

export const verifyEmailMail = defineMail<VerifyEmailData>({
  subject: () => 'Verify your email address',
  text: ({ name, url, token, minutes }) =>
    [
      `Hello ${name},`,
      '',
      'Confirm your email address by opening this link:',
      url,
      '',
      `Or send POST /api/auth/verify-email with {"token": "${token}"}.`,
      `The link works once and expires in ${minutes} minutes.`,
    ].join('\n'),
  html: ({ name, url, minutes }) => html`<p>Hello ${name},</p>
<p>Confirm your email address by opening this link:</p>
<p><a href="${url}">Verify my email address</a></p>
<p>The link works once and expires in ${minutes} minutes.</p>`,
})

export interface ResetPasswordData {
  name: string
  url: string
  token: string
  minutes: number
}

export const resetPasswordMail = defineMail<ResetPasswordData>({
  subject: () => 'Reset your password',
  text: ({ name, url, token, minutes }) =>
    [
      `Hello ${name},`,
      '',
      'Someone asked to reset the password of your account. If it was you, open this link:',
      url,
      '',
      `Or send POST /api/auth/reset-password with {"token": "${token}", "password": "...", "password_confirmation": "..."}.`,
      `The link works once and expires in ${minutes} minutes. If it was not you, ignore this mail.`,
    ].join('\n'),
  html: ({ name, url, minutes }) => html`<p>Hello ${name},</p>
<p>Someone asked to reset the password of your account. If it was you, open this link:</p>
<p><a href="${url}">Choose a new password</a></p>
<p>The link works once and expires in ${minutes} minutes. If it was not you, ignore this mail.</p>`,
})
