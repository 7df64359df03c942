/**
 * Testing helpers: call an app through `app.fetch` without a server.
 *
 * @example
 * const client = createTestClient(app)
 * const { status, body } = await client.post('/api/auth/login', { json: { email, password } })
 */
import { CONN_INFO } from '../app/conn-info.ts'
import type { App } from '../app/create-app.ts'

export { schemaOutput } from './schema-output.ts'
export { variedRow } from './varied-row.ts'

export interface TestRequestInit {
  json?: unknown
  body?: BodyInit
  headers?: Record<string, string>
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string
  /** The peer address the adapter would report. */
  clientAddress?: string
}

export interface TestResponse<T = any> {
  status: number
  headers: Headers
  /** The parsed JSON body, or the text when it is not JSON, or null when empty. */
  body: T
  response: Response
}

export interface TestClient {
  request<T = any>(method: string, path: string, init?: TestRequestInit): Promise<TestResponse<T>>
  get<T = any>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>
  post<T = any>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>
  put<T = any>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>
  patch<T = any>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>
  delete<T = any>(path: string, init?: TestRequestInit): Promise<TestResponse<T>>
}

export function createTestClient(app: Pick<App, 'fetch'>, baseUrl = 'http://localhost'): TestClient {
  async function request<T>(method: string, path: string, init: TestRequestInit = {}): Promise<TestResponse<T>> {
    const headers = new Headers(init.headers)
    let body = init.body
    if (init.json !== undefined) {
      body = JSON.stringify(init.json)
      if (!headers.has('content-type')) headers.set('content-type', 'application/json')
    }
    if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`)
    const response = await app.fetch(new Request(new URL(path, baseUrl), { method, headers, body }), {
      [CONN_INFO]: { remoteAddress: init.clientAddress ?? '127.0.0.1' },
    })
    const text = await response.clone().text()
    let parsed: unknown = text === '' ? null : text
    if (text !== '' && response.headers.get('content-type')?.includes('json')) parsed = JSON.parse(text)
    return { status: response.status, headers: response.headers, body: parsed as T, response }
  }
  return {
    request,
    get: (path, init) => request('GET', path, init),
    post: (path, init) => request('POST', path, init),
    put: (path, init) => request('PUT', path, init),
    patch: (path, init) => request('PATCH', path, init),
    delete: (path, init) => request('DELETE', path, init),
  }
}
