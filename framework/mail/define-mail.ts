/**
 * A mail: its subject, text and HTML rendered from a typed payload. One file
 * per mail in `app/mail/` (`svc make:mail`); send it with any mailer, or
 * through the queue (`queuedMailer`).
 *
 * @example
 * export const welcomeMail = defineMail<{ name: string }>({
 *   subject: ({ name }) => `Welcome, ${name}`,
 *   text: ({ name }) => `Hello ${name},\n\nthanks for signing up.`,
 *   html: ({ name }) => html`<p>Hello ${name},</p><p>thanks for signing up.</p>`,
 * })
 * await c.mailer.send(welcomeMail.to('ada@example.com', { name: 'Ada' }))
 */
import { escapeHtml, textToHtml, type SafeHtml } from './html.ts'
import type { MailMessage } from './index.ts'

export interface MailDefinitionOptions<Data> {
  subject(data: Data): string
  /** The plain-text part: every mail has one (clients that show no HTML, spam filters). */
  text(data: Data): string
  /** The HTML part (use html`` so values are escaped); by default the text, as paragraphs. */
  html?(data: Data): SafeHtml
}

export interface RenderedMail {
  subject: string
  text: string
  /** A whole document: the HTML part inside a minimal page. */
  html: string
}

export interface MailDefinition<Data> {
  readonly kind: 'svc.mail'
  render(data: Data): RenderedMail
  /** The message for one recipient. */
  to(address: string, data: Data): MailMessage
}

export function defineMail<Data>(options: MailDefinitionOptions<Data>): MailDefinition<Data> {
  const render = (data: Data): RenderedMail => {
    const subject = options.subject(data)
    const text = options.text(data)
    const body = options.html?.(data) ?? textToHtml(text)
    return { subject, text, html: htmlDocument(subject, body) }
  }
  return {
    kind: 'svc.mail',
    render,
    to: (address, data) => ({ to: address, ...render(data) }),
  }
}

function htmlDocument(subject: string, body: SafeHtml): string {
  return [
    '<!doctype html>',
    '<html>',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>' + escapeHtml(subject) + '</title></head>',
    '<body style="font-family: -apple-system, Segoe UI, Roboto, sans-serif; line-height: 1.5; color: #1f2328;">',
    body.value,
    '</body>',
    '</html>',
  ].join('\n')
}
