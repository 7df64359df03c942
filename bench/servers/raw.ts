/** The ceiling: node:http answering the JSON by hand, no framework. */
import { createServer } from 'node:http'
import { HELLO_BODY, listen, userBody, type BenchServer } from './types.ts'

const USER_PATH = /^\/users\/(\d+)$/

export function startRawServer(): Promise<BenchServer> {
  const server = createServer((req, res) => {
    const user = req.method === 'GET' ? USER_PATH.exec(req.url ?? '') : null
    const body = req.method !== 'GET' ? undefined : req.url === '/hello' ? HELLO_BODY : user ? userBody(user[1]!) : undefined
    const text = JSON.stringify(body ?? { success: false, error: 'Not Found', code: 404 })
    res.writeHead(body === undefined ? 404 : 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    res.end(text)
  })
  return listen(server)
}
