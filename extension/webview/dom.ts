/**
 * What the pages share: building DOM with createElement/textContent only
 * (content from traces and responses is never parsed as HTML), the VS Code
 * API handle, and the formatting of times and statuses.
 */
import type { TimeFormatOptions } from '../src/time-format.ts'

export interface VsCodeApi<Message> {
  postMessage(message: Message): void
  getState(): unknown
  setState(state: unknown): void
}

declare function acquireVsCodeApi<Message>(): VsCodeApi<Message>

export function vscodeApi<Message>(): VsCodeApi<Message> {
  return acquireVsCodeApi<Message>()
}

/**
 * How the page writes times (with src/time-format.ts, as the Traces view does): on the extension host's clock,
 * which the page's HTML names. In a remote window the page runs on another machine, maybe in another zone.
 */
export const timeOptions: TimeFormatOptions = { timeZone: document.querySelector('meta[name="svc-time-zone"]')?.getAttribute('content') ?? undefined }

export type Child = Node | string | null | undefined | false

export function h(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    element.append(typeof child === 'string' ? document.createTextNode(child) : child)
  }
  return element
}

/** An SVG element (the charts). */
export function svg(tag: string, attributes: Record<string, string | number> = {}, ...children: Array<SVGElement | string>): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  for (const child of children) element.append(typeof child === 'string' ? document.createTextNode(child) : child)
  return element
}

export function ms(value: number): string {
  return value < 1 ? `${value.toFixed(2)} ms` : value < 1000 ? `${value.toFixed(1)} ms` : `${(value / 1000).toFixed(2)} s`
}

export function statusClass(status: number): string {
  return status >= 500 ? 'status-5xx' : status >= 400 ? 'status-4xx' : status >= 300 ? 'status-3xx' : 'status-2xx'
}

/** A status as a pill coloured by its class (theme colours, contrast-checked). */
export function statusPill(status: number, id?: string): HTMLElement {
  return h('span', { class: `status ${statusClass(status)}`, ...(id ? { id } : {}) }, String(status))
}

export function pretty(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value !== 'string') return JSON.stringify(value, null, 2)
  try {
    return JSON.stringify(JSON.parse(value), null, 2)
  } catch {
    return value
  }
}

export function button(label: string, attributes: Record<string, string>, onClick: () => void): HTMLButtonElement {
  const element = h('button', { type: 'button', ...attributes }, label) as HTMLButtonElement
  element.addEventListener('click', onClick)
  return element
}

/** A link that runs `onClick` (the page has no navigation of its own). */
export function actionLink(label: string, attributes: Record<string, string>, onClick: () => void): HTMLElement {
  const link = h('a', { href: '#', ...attributes }, label)
  link.addEventListener('click', (event) => {
    event.preventDefault()
    onClick()
  })
  return link
}
