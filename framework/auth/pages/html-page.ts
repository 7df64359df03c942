/**
 * A small HTML page of the auth plugin (the pages the auth mails link to),
 * answered as a plain `Response`. Its Content-Security-Policy allows no
 * script or style but the page's own, marked with a nonce fresh for each
 * answer: a value from the query string that escaped its markup could run
 * nothing. Nothing is loaded from elsewhere (`default-src 'none'`), the page
 * talks to this app only (`connect-src 'self'`), and the token in its address
 * is neither cached nor sent on as a Referer.
 */
import { html, SafeHtml } from '../../mail/html.ts'

export interface HtmlPage {
  title: string
  /** The page's content, escaped by html``. */
  body: SafeHtml
  /** The page's own script, if any: run with the nonce, after the body. */
  script?: string
}

/** 16 random bytes as base64: CSP's nonce (Web Crypto, on every runtime). */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes))
}

export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    // The form is sent by the script, as JSON; without it, the browser would post it form-encoded, which the API refuses.
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem}.ok{color:#166534}.error{color:#b91c1c}`

export function htmlPage(page: HtmlPage): Response {
  const nonce = newNonce()
  const script = page.script === undefined ? '' : html`<script nonce="${nonce}">${rawScript(page.script)}</script>`
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
<style nonce="${nonce}">${rawScript(STYLE)}</style>
</head>
<body>
<h1>${page.title}</h1>
${page.body}
${script}
</body>
</html>
`
  return new Response(document.value, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(nonce),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
  })
}

/** The page's own code and style (constants of this module, never user input), kept as they are. */
function rawScript(code: string): SafeHtml {
  return new SafeHtml(code)
}
