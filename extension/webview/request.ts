/**
 * The request page: a form for one request (method, URL, headers, body),
 * the environment it goes to, the answer (read-only: status, time, headers,
 * trace id as a link, body) and the history of what was sent. The extension
 * sends it (and asks first for a production environment).
 */
import type { EditableRequest, EnvironmentView, HistoryEntry, RequestPanelMessage, RequestWebviewMessage, SentResponse } from '../src/messages.ts'
import { formatTime } from '../src/time-format.ts'
import { actionLink, button, h, ms, pretty, statusPill, timeOptions, vscodeApi } from './dom.ts'

const vscode = vscodeApi<RequestWebviewMessage>()
const app = document.getElementById('app')!
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']

let environments: EnvironmentView[] = []
let environment = ''
let history: HistoryEntry[] = []

const method = h('select', { id: 'method', 'aria-label': 'Method' }, ...METHODS.map((name) => h('option', { value: name }, name))) as HTMLSelectElement
const url = h('input', { id: 'url', type: 'text', 'aria-label': 'URL', spellcheck: 'false' }) as HTMLInputElement
const environmentSelect = h('select', { id: 'environment', 'aria-label': 'Environment' }) as HTMLSelectElement
const headerRows = h('tbody', { id: 'header-rows' })
const body = h('textarea', { id: 'body', rows: '10', spellcheck: 'false', 'aria-label': 'Body' }) as HTMLTextAreaElement
const bodyNote = h('p', { class: 'muted', id: 'body-note' })
const sendButton = button('Send', { id: 'send' }, send)
const responseView = h('section', { id: 'response' })
const historyList = h('ol', { id: 'history' })
// Beside the list, not an item of it: as an item it read "1. Nothing sent yet".
const historyEmpty = h('p', { id: 'history-empty', class: 'muted' }, 'Nothing sent yet')
const title = h('h1', {}, 'Request')

function headerRow(name = '', value = ''): HTMLElement {
  const nameInput = h('input', { type: 'text', class: 'header-name', value: name, 'aria-label': 'Header name', spellcheck: 'false' }) as HTMLInputElement
  const valueInput = h('input', { type: 'text', class: 'header-value', value: value, 'aria-label': 'Header value', spellcheck: 'false' }) as HTMLInputElement
  nameInput.value = name
  valueInput.value = value
  const row = h('tr', {}, h('td', {}, nameInput), h('td', {}, valueInput))
  row.append(h('td', {}, button('✕', { class: 'icon secondary', title: 'Remove header', 'aria-label': 'Remove header' }, () => row.remove())))
  return row
}

function headers(): Array<[string, string]> {
  return [...headerRows.querySelectorAll('tr')].map((row) => [(row.querySelector('.header-name') as HTMLInputElement).value.trim(), (row.querySelector('.header-value') as HTMLInputElement).value] as [string, string]).filter(([name]) => name !== '')
}

function setHeader(name: string, value: string | null): void {
  const rows = [...headerRows.querySelectorAll('tr')].filter((row) => (row.querySelector('.header-name') as HTMLInputElement).value.trim().toLowerCase() === name)
  for (const row of rows) row.remove()
  if (value !== null) headerRows.append(headerRow(name, value))
}

function checkBody(): boolean {
  const text = body.value.trim()
  if (text === '' || !headers().some(([name, value]) => name.toLowerCase() === 'content-type' && value.includes('json'))) {
    bodyNote.textContent = ''
    return true
  }
  try {
    JSON.parse(text)
    bodyNote.textContent = ''
    return true
  } catch (error) {
    bodyNote.textContent = `Not valid JSON: ${(error as Error).message}`
    return false
  }
}

function current(): EditableRequest {
  return { method: method.value, url: url.value.trim(), headers: headers(), body: body.value }
}

/** A route parameter still in the URL's path (`/{id}`, as Send request puts a route's path): sent, it was a 404 of `%7Bid%7D`. */
function unfilledParameter(): string | null {
  return /\/(\{[A-Za-z_]\w*\??\})/.exec(url.value.split(/[?#]/)[0]!)?.[1] ?? null
}

function send(): void {
  if (!checkBody()) return
  const parameter = unfilledParameter()
  if (parameter !== null) {
    status(`Put a value in place of ${parameter} in the URL first (a parameter of the route).`, true)
    url.focus()
    return
  }
  status('')
  vscode.postMessage({ type: 'send', request: current(), environment })
}

function load(request: EditableRequest): void {
  method.value = METHODS.includes(request.method) ? request.method : 'GET'
  url.value = request.url
  headerRows.replaceChildren(...request.headers.map(([name, value]) => headerRow(name, value)))
  body.value = request.body === '' ? '' : pretty(request.body)
  checkBody()
}

/** The URL's origin replaced by the environment's base URL. */
function moveTo(name: string): void {
  const target = environments.find((candidate) => candidate.name === name)
  if (!target) return
  environment = name
  try {
    const parsed = new URL(url.value)
    url.value = `${target.baseUrl}${parsed.pathname}${parsed.search}`
  } catch {
    url.value = `${target.baseUrl}${url.value.startsWith('/') ? url.value : `/${url.value}`}`
  }
  environmentSelect.classList.toggle('production', target.production)
}

function renderEnvironments(): void {
  environmentSelect.replaceChildren(...environments.map((entry) => h('option', { value: entry.name }, `${entry.name}${entry.production ? ' (production)' : ''}`)))
  environmentSelect.value = environment
  environmentSelect.classList.toggle('production', environments.find((entry) => entry.name === environment)?.production === true)
}

function renderResponse(response: SentResponse): void {
  const traceId = response.traceId
  responseView.replaceChildren(
    h('h2', {}, 'Response'),
    h(
      'p',
      { class: 'summary' },
      statusPill(response.status, 'response-status'),
      ` ${response.statusText} · ${ms(response.duration_ms)}`,
      traceId ? ' · trace ' : ' · no trace id',
      traceId ? actionLink(traceId, { id: 'response-trace' }, () => vscode.postMessage({ type: 'openTrace', traceId })) : null,
    ),
    h('details', {}, h('summary', {}, `Headers (${response.headers.length})`), h('table', { class: 'headers' }, ...response.headers.map(([name, value]) => h('tr', {}, h('th', {}, name), h('td', {}, value))))),
    response.body === '' ? h('p', { class: 'muted' }, 'No body') : h('pre', { class: 'body', id: 'response-body' }, pretty(response.body)),
  )
}

function renderHistory(): void {
  historyList.replaceChildren(
    ...history.map((entry) =>
      h(
        'li',
        {},
        actionLink(`${entry.request.method} ${pathOf(entry.request.url)}`, { class: 'history-entry' }, () => load(entry.request)),
        ' ',
        entry.status === null ? h('span', { class: 'muted' }, 'failed') : statusPill(entry.status),
        h('span', { class: 'muted' }, ` ${entry.environment} · ${formatTime(entry.at, Date.now(), timeOptions)}`),
      ),
    ),
  )
  historyList.hidden = history.length === 0
  historyEmpty.hidden = history.length > 0
}

function pathOf(text: string): string {
  try {
    const parsed = new URL(text)
    return `${parsed.pathname}${parsed.search}`
  } catch {
    return text
  }
}

function layout(): void {
  environmentSelect.addEventListener('change', () => moveTo(environmentSelect.value))
  body.addEventListener('input', checkBody)
  url.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') send()
  })
  app.replaceChildren(
    title,
    h('div', { class: 'request-line' }, method, url, environmentSelect, sendButton),
    h(
      'section',
      { id: 'headers' },
      h('h2', {}, 'Headers'),
      h('table', { class: 'header-editor' }, headerRows),
      h(
        'div',
        { class: 'row-actions' },
        button('Add header', { class: 'secondary', id: 'add-header' }, () => headerRows.append(headerRow())),
        button('Authorization…', { class: 'secondary', id: 'authorization' }, () => vscode.postMessage({ type: 'pickAuth' })),
      ),
    ),
    h('section', { id: 'body-section' }, h('h2', {}, 'Body'), body, bodyNote),
    h('div', { id: 'status', class: 'result', role: 'status' }),
    responseView,
    h('section', { id: 'history-section' }, h('h2', {}, 'History'), historyList, historyEmpty),
  )
}

function status(text: string, error = false): void {
  const target = document.getElementById('status')!
  target.replaceChildren(text === '' ? '' : h('p', { class: error ? 'error-text' : 'muted', id: error ? 'request-error' : 'request-busy' }, text))
}

window.addEventListener('message', (event: MessageEvent<RequestPanelMessage>) => {
  const message = event.data
  if (typeof message !== 'object' || message === null) return
  switch (message.type) {
    case 'init':
      environments = message.environments
      environment = message.environment
      history = message.history
      title.textContent = message.title
      renderEnvironments()
      load(message.request)
      renderHistory()
      responseView.replaceChildren()
      status('')
      break
    case 'busy':
      sendButton.disabled = true
      status('Sending…')
      break
    case 'response':
      sendButton.disabled = false
      status('')
      history = message.history
      renderResponse(message.response)
      renderHistory()
      break
    case 'authorization':
      setHeader('authorization', message.value)
      break
    case 'error':
      sendButton.disabled = false
      status(message.message, true)
      break
  }
})

layout()
vscode.postMessage({ type: 'ready' })
