/**
 * Traces as a Postman collection (v2.1): one request per trace, with the
 * recorded response as its example. Redacted credentials become variables
 * (`{{token}}`, `{{api_key}}`), to be filled in Postman.
 */
import { REDACTED, type TraceRecord } from '../../framework/trace/index.ts'
import type { PostmanCollectionJson } from '../contract/traces.ts'

const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json'
const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent'])

export function postmanCollection(traces: readonly TraceRecord[], name: string): PostmanCollectionJson {
  return {
    info: { name, schema: SCHEMA },
    variable: [
      { key: 'base_url', value: 'http://localhost:8080' },
      { key: 'token', value: '' },
      { key: 'api_key', value: '' },
    ],
    item: traces.map((trace) => {
      const request = {
        method: trace.method,
        header: Object.entries(trace.headers)
          .filter(([key]) => !SKIPPED_HEADERS.has(key))
          .map(([key, value]) => ({ key, value: value === REDACTED ? variableFor(key) : value })),
        url: {
          raw: `{{base_url}}${trace.path}${trace.query === '' ? '' : `?${trace.query}`}`,
          host: ['{{base_url}}'],
          path: trace.path.split('/').filter((segment) => segment !== ''),
          query: trace.query === '' ? [] : trace.query.split('&').map((pair) => {
            const [key, ...value] = pair.split('=')
            return { key, value: value.join('=') }
          }),
        },
        ...(trace.body.content === null
          ? {}
          : {
              body: {
                mode: 'raw',
                raw: typeof trace.body.content === 'string' ? trace.body.content : JSON.stringify(trace.body.content, null, 2),
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
    }),
  }
}

function variableFor(header: string): string {
  if (header === 'authorization') return 'Bearer {{token}}'
  if (header === 'x-api-key') return '{{api_key}}'
  return `{{${header.replace(/[^a-z0-9]+/g, '_')}}}`
}
