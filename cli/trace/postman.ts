/**
 * Traces as a Postman collection (v2.1): one request per trace, with the
 * recorded response as its example. Redacted credentials become variables
 * (`{{token}}`, `{{api_key}}`, `{{password}}`), each declared in the
 * collection, to be filled in Postman: a `[REDACTED]` left in a request would
 * be sent as a wrong credential (a login counted as a failed attempt).
 * `{{base_url}}` starts as the recorded host.
 */
import { REDACTED, type TraceRecord } from '../../framework/trace/index.ts'
import type { PostmanCollectionJson } from '../contract/traces.ts'
import { REPLAY_HEADER } from './replay-header.ts'

const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json'
/** The transport's, and svc's replay marker: a request sent from Postman is not an svc replay, and a signed marker copied into it would read as one. */
const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent', REPLAY_HEADER])

export function postmanCollection(traces: readonly TraceRecord[], name: string): PostmanCollectionJson {
  const used = new Set<string>()
  const variable = (key: string): string => {
    const name = key.toLowerCase().replace(/[^a-z0-9]+/g, '_')
    used.add(name)
    return `{{${name}}}`
  }
  const host = traces.find((trace) => typeof trace.headers.host === 'string')?.headers.host
  const item = traces.map((trace) => {
      const query = trace.query === '' ? [] : trace.query.split('&').map((pair) => {
        const [key = '', ...value] = pair.split('=')
        const text = value.join('=')
        return { key, value: isRedacted(text) ? variable(safeDecode(key)) : text }
      })
      const request = {
        method: trace.method,
        header: Object.entries(trace.headers)
          .filter(([key]) => !SKIPPED_HEADERS.has(key))
          .map(([key, value]) => ({ key, value: value === REDACTED ? variableFor(key, variable) : value })),
        url: {
          raw: `{{base_url}}${trace.path}${query.length === 0 ? '' : `?${query.map((pair) => `${pair.key}=${pair.value}`).join('&')}`}`,
          host: ['{{base_url}}'],
          path: trace.path.split('/').filter((segment) => segment !== ''),
          query,
        },
        ...(trace.body.content === null
          ? {}
          : {
              body: {
                mode: 'raw',
                raw: typeof trace.body.content === 'string'
                  ? trace.body.content.replaceAll(REDACTED, variable('redacted'))
                  : JSON.stringify(withVariables(trace.body.content, '', variable), null, 2),
                options: { raw: { language: typeof trace.body.content === 'string' ? 'text' : 'json' } },
              },
            }),
      }
      return {
        name: `${trace.method} ${trace.route ?? trace.path} (${trace.status_code}, ${trace.trace_id})`,
        request,
        response: [
          {
            name: `recorded ${trace.timestamp}`,
            originalRequest: request,
            code: trace.response.status,
            header: Object.entries(trace.response.headers).map(([key, value]) => ({ key, value })),
            body: typeof trace.response.body.content === 'string' ? trace.response.body.content : JSON.stringify(trace.response.body.content, null, 2),
          },
        ],
      }
    })
  return {
    info: { name, schema: SCHEMA },
    variable: [
      { key: 'base_url', value: host === undefined ? 'http://localhost:8080' : `http://${host}` },
      ...['token', 'api_key', ...[...used].filter((key) => key !== 'token' && key !== 'api_key').sort()].map((key) => ({ key, value: '' })),
    ],
    item,
  }
}

function variableFor(header: string, variable: (key: string) => string): string {
  if (header === 'authorization') return `Bearer ${variable('token')}`
  if (header === 'x-api-key') return variable('api_key')
  return variable(header)
}

/** A JSON body with each redacted value replaced by the variable of its field's name. */
function withVariables(value: unknown, key: string, variable: (key: string) => string): unknown {
  if (value === REDACTED) return variable(key === '' ? 'redacted' : key)
  if (Array.isArray(value)) return value.map((item) => withVariables(item, key, variable))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withVariables(item, name, variable)]))
}

function isRedacted(text: string): boolean {
  return text === REDACTED || safeDecode(text) === REDACTED
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
