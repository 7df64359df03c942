/**
 * The text form of a message, as the log and console mailers write it
 * (`storage/logs/mail.log`): a `--- mail <time>` line, the headers, a blank
 * line, the text, and the HTML part after `--- html`. What a message carries
 * is an app's own text (a user's name in a subject, a post in a body), so
 * nothing in it may pass for that framing: a line break in a subject wrote a
 * whole other mail into the log, which a developer (or a test taking the link
 * from the log) read as sent. Ordinary values are written as they are.
 */
import type { MailMessage } from './index.ts'

/** Characters that end or hide a header line: controls (C0, DEL, C1; tab too) and the Unicode line and paragraph separators. */
const HEADER_UNSAFE = /[\p{Cc}\u2028\u2029]/u
/** In a part, the controls other than the line break and the tab (a lone CR, ESC, NUL...) and the Unicode separators. */
const PART_UNSAFE = /[\0-\x08\x0B-\x1F\x7F-\x9F\u2028\u2029]/gu
/** Lines of a part that read as the framing (`--- mail ...`, `--- html`), quoted or not: each gets one more `>`. */
const FRAMING_LINE = /^(>*--- (?:mail|html)\b)/gm

/** The entry of one message; `From:` is the message's sender, else `defaultFrom`. */
export function formatMail(message: MailMessage, at: Date, defaultFrom?: string): string {
  const from = message.from ?? defaultFrom
  return [
    `--- mail ${at.toISOString()}`,
    ...(from === undefined ? [] : [`From: ${mailHeaderValue(from)}`]),
    `To: ${mailHeaderValue(message.to)}`,
    `Subject: ${mailHeaderValue(message.subject)}`,
    '',
    mailPart(message.text),
    '',
    ...(message.html === undefined ? [] : ['--- html', mailPart(message.html), '']),
  ].join('\n')
}

/**
 * A header value on one line: as it is, or, when it holds a control
 * character or a line separator, as a JSON string (`"Welcome, Eve\n--- mail"`),
 * which `JSON.parse` reads back. A value that would itself read as a JSON
 * string (`"Hi"`, quotes and all) is written as one too; one that merely
 * starts with a quote (`"Blog" <no-reply@blog.test>`) is not, as no JSON
 * string reads so.
 * @example mailHeaderValue('Welcome, Ada') // 'Welcome, Ada'
 */
export function mailHeaderValue(value: string): string {
  if (!HEADER_UNSAFE.test(value) && !readsAsJsonString(value)) return value
  // JSON.stringify escapes C0 controls, quotes and backslashes; DEL, C1 and the separators are left to this.
  return JSON.stringify(value).replace(/[\x7F-\x9F\u2028\u2029]/g, unicodeEscape)
}

function readsAsJsonString(value: string): boolean {
  if (!value.startsWith('"')) return false
  try {
    return typeof JSON.parse(value) === 'string'
  } catch {
    return false
  }
}

/**
 * A part's text with its lines kept: line breaks written as `\n` (a CR, alone
 * or before LF, is a line break in mail too), a line that reads as the
 * framing quoted with `>` (as mbox quotes `From `: remove one `>` from such a
 * line to read it back), and other control characters as `\u001b` escapes,
 * so that none moves the cursor of a terminal showing the log.
 */
function mailPart(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(FRAMING_LINE, '>$1')
    .replace(PART_UNSAFE, unicodeEscape)
}

/** `\u001b` for ESC: the escape JSON writes. */
function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
}
