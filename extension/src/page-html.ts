/**
 * The HTML of the webview pages (trace detail, request, dashboard): a shell
 * that loads one bundled script and the stylesheets from the media folder.
 * Content Security Policy: nothing by default; styles from the webview's own
 * source; scripts only with this load's nonce; no inline style, no remote
 * anything. No VS Code import: the Playwright test renders it as is.
 */
import { randomBytes } from 'node:crypto'

export interface PageHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string
  /** URIs (as strings) of the page's script and stylesheets in media/. */
  scriptUri: string
  styleUris: string[]
  nonce: string
  title: string
  /** The extension host's IANA time zone: the page writes times on that clock, as the Traces view does (see time-format.ts). */
  timeZone?: string
}

/** A fresh nonce from a cryptographic source, for each load of a page. */
export function createNonce(): string {
  return randomBytes(24).toString('base64')
}

export function pageHtml(options: PageHtmlOptions): string {
  const csp = [
    "default-src 'none'",
    `style-src ${options.cspSource}`,
    `img-src ${options.cspSource} data:`,
    `font-src ${options.cspSource}`,
    `script-src 'nonce-${options.nonce}'`,
  ].join('; ')
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
${options.timeZone ? `  <meta name="svc-time-zone" content="${escapeAttribute(options.timeZone)}">\n` : ''}${options.styleUris.map((uri) => `  <link rel="stylesheet" href="${escapeAttribute(uri)}">`).join('\n')}
  <title>${escapeText(options.title)}</title>
</head>
<body>
  <main id="app" aria-live="polite"><p class="muted">Loading…</p></main>
  <script nonce="${escapeAttribute(options.nonce)}" src="${escapeAttribute(options.scriptUri)}"></script>
</body>
</html>
`
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;')
}
