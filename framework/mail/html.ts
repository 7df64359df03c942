/**
 * HTML for mails, escaped by default: `html\`<p>Hello ${name}</p>\`` escapes
 * `name`; a nested html`` value (or an array of them) is kept as it is.
 */

/** Markup that is already safe: html`` returns it, and html`` does not escape it again. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!)
}

/** @example html`<a href="${url}">${title}</a>` */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!
  values.forEach((value, i) => {
    out += interpolate(value) + strings[i + 1]!
  })
  return new SafeHtml(out)
}

function interpolate(value: unknown): string {
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(interpolate).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

/** Plain text as HTML: escaped, paragraphs at blank lines, line breaks kept, links made clickable. */
export function textToHtml(text: string): SafeHtml {
  const paragraphs = text.split(/\n{2,}/).map((paragraph) =>
    escapeHtml(paragraph)
      .replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`)
      .replace(/\n/g, '<br>\n'),
  )
  return new SafeHtml(paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n'))
}
