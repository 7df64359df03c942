/**
 * The JSON request body: parsed once and lazily; malformed JSON 400, a body
 * over the limit 413 (counted on the bytes read, whatever Content-Length
 * says), a non-JSON content type 415.
 */
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { createApp, defineRoutes, type App } from 'svc'
import { testConfig } from '../helpers/app.ts'
import { withServer } from '../helpers/server.ts'

const LIMIT = 1024

function bodyApp(limit = LIMIT): { app: App; reads: () => number } {
  let reads = 0
  const app = createApp({
    config: testConfig({ BODY_LIMIT: String(limit) }),
    api: defineRoutes((r) => {
      r.post('/echo', async (c) => {
        const first = await c.body()
        const second = await c.body()
        reads++
        return { body: first, same: first === second }
      })
      r.post('/ignore', () => 'did not read the body')
    }),
  })
  return { app, reads: () => reads }
}

const post = (app: App, init: RequestInit & { path?: string }) =>
  app.fetch(new Request(`http://localhost${init.path ?? '/api/echo'}`, { method: 'POST', ...init }))

const json = { 'content-type': 'application/json' }

function streamOf(chunks: number, chunkSize: number): ReadableStream<Uint8Array> {
  let sent = 0
  return new ReadableStream({
    pull(controller) {
      if (sent++ === chunks) return controller.close()
      controller.enqueue(new Uint8Array(chunkSize).fill(0x20))
    },
  })
}

describe('JSON body', () => {
  it('is parsed once, however often it is asked for', async () => {
    const { app } = bodyApp()
    const response = await post(app, { headers: json, body: JSON.stringify({ title: 'x', tags: [1, 2] }) })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ success: true, data: { body: { title: 'x', tags: [1, 2] }, same: true } })
  })

  it('accepts application/json with parameters and application/*+json', async () => {
    const { app } = bodyApp()
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
      const response = await post(app, { headers: { 'content-type': type }, body: '{"a":1}' })
      expect(response.status, type).toBe(200)
    }
  })

  it('an empty body is {}', async () => {
    const { app } = bodyApp()
    const response = await post(app, { headers: json, body: '' })
    expect((await response.json()).data.body).toEqual({})
    const none = await post(app, {})
    expect((await none.json()).data.body).toEqual({})
  })

  it('malformed JSON: 400 envelope', async () => {
    const { app } = bodyApp()
    const response = await post(app, { headers: json, body: '{"title": ' })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({ success: false, code: 400 })
    expect(body.error).toMatch(/^Malformed JSON body/)
  })

  it('malformed JSON: the message names where it breaks, from svc, not from the engine (which may name no position)', async () => {
    const { app } = bodyApp()
    const cases: Array<[string, string]> = [
      ['{"title": ', 'the JSON ends before it is complete'],
      ['{"title": "a",}', 'invalid JSON at line 1, column 15'],
      // V8's message for an unexpected token names no position: the line and column are svc's own.
      ['{\n "title": "a",\n "body": x}', 'invalid JSON at line 3, column 10'],
      ['[1 2]', 'invalid JSON at line 1, column 4'],
      ['{"a": "\u0001"}', 'invalid JSON at line 1, column 8'],
      ['{"a": 01}', 'invalid JSON at line 1, column 8'],
      ['"unterminated', 'the JSON ends before it is complete'],
    ]
    for (const [body, problem] of cases) {
      const response = await post(app, { headers: json, body })
      expect(response.status, body).toBe(400)
      expect((await response.json()).error, body).toBe(`Malformed JSON body: ${problem}`)
    }
  })

  it('invalid UTF-8: 400', async () => {
    const { app } = bodyApp()
    const response = await post(app, { headers: json, body: new Uint8Array([0x22, 0xff, 0xfe, 0x22]) })
    expect(response.status).toBe(400)
    expect((await response.json()).error).toMatch(/not valid UTF-8/)
  })

  it('a non-JSON content type: 415 naming what was sent', async () => {
    const { app } = bodyApp()
    const form = await post(app, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })
    expect(form.status).toBe(415)
    expect(await form.json()).toMatchObject({ success: false, code: 415, error: expect.stringContaining('application/x-www-form-urlencoded') })
    const missing = await post(app, { body: new Uint8Array([0x7b, 0x7d]) })
    expect(missing.status).toBe(415)
    expect((await missing.json()).error).toContain('no Content-Type')
    // Bytes that are not UTF-8 under a type the route does not read are the wrong kind of body, not malformed JSON.
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe])
    for (const type of ['application/octet-stream', 'image/png']) {
      const binary = await post(app, { headers: { 'content-type': type }, body: png })
      expect(binary.status, type).toBe(415)
      expect(await binary.json()).toMatchObject({ success: false, code: 415, error: `Unsupported Media Type: send the body as application/json (got ${type})` })
    }
    // An empty body, or whitespace, under any type is no body: the route sees {} as before.
    expect((await post(app, { headers: { 'content-type': 'application/octet-stream' }, body: '  ' })).status).not.toBe(415)
  })

  it('a body sent with a transfer coding other than chunked (Transfer-Encoding: gzip, chunked): 501 naming it, never read as plain', async () => {
    const { app, reads } = bodyApp()
    // Node undoes only chunked: the gzip coding's bytes reached the reader as they were, and a plain body labelled
    // gzip was taken as JSON (a 200 here), as Content-Encoding's were before they were refused.
    for (const [coding, named] of [['gzip, chunked', 'gzip'], ['deflate,chunked', 'deflate'], ['chunked, br', 'br']] as const) {
      const response = await post(app, { headers: { ...json, 'transfer-encoding': coding }, body: '{"title":"x"}' })
      expect(response.status, coding).toBe(501)
      expect(await response.json()).toEqual({
        success: false,
        code: 501,
        error: `Not Implemented: the body is sent with the transfer coding ${named}, which is not read; send it with Content-Length or chunked alone`,
      })
    }
    expect(reads()).toBe(0)
    for (const coding of ['chunked', 'Chunked', 'identity']) {
      expect((await post(app, { headers: { ...json, 'transfer-encoding': coding }, body: '{"title":"x"}' })).status, coding).toBe(200)
    }
  })

  it('a JSON body declared in a charset other than UTF-8: 415 naming it, before its bytes are read as UTF-8', async () => {
    const { app, reads } = bodyApp()
    // "José" in ISO-8859-1 is 0xE9 for é (a 400 "not valid UTF-8" that blamed the client's JSON); in UTF-16 every
    // ASCII character is followed by a NUL (a 400 "invalid JSON at line 1, column 2"); "JosÃ©" in ISO-8859-1 is the
    // UTF-8 bytes of "José", which were stored as "José" though the client meant "JosÃ©".
    const latin1 = (text: string) => new Uint8Array([...text].map((ch) => ch.charCodeAt(0)))
    for (const [charset, body] of [
      ['iso-8859-1', latin1('{"name":"Jos\u00e9"}')],
      ['ISO-8859-1', latin1('{"name":"Jos\u00c3\u00a9"}')],
      ['utf-16', new Uint8Array(Buffer.from('{"name":"x"}', 'utf16le'))],
      ['"windows-1252"', latin1('{"name":"x"}')],
    ] as const) {
      const response = await post(app, { headers: { 'content-type': `application/json; charset=${charset}` }, body })
      expect(response.status, charset).toBe(415)
      expect(await response.json()).toEqual({
        success: false,
        code: 415,
        error: `Unsupported Media Type: the body is declared as ${charset.replaceAll('"', '').toLowerCase()}; JSON is read as UTF-8 only (send it as UTF-8, with charset=utf-8 or no charset)`,
      })
    }
    expect(reads()).toBe(0)
    // UTF-8 however it is written, US-ASCII (UTF-8's first 128 characters), and no charset at all, are read.
    for (const type of ['application/json; charset=utf-8', 'application/json; charset=US-ASCII', 'application/json;charset="UTF-8"', 'application/json; charset=utf8', 'application/json', 'application/problem+json; charset=UTF-8']) {
      expect((await post(app, { headers: { 'content-type': type }, body: '{"name":"José"}' })).status, type).toBe(200)
    }
  })

  it('a compressed body (Content-Encoding): 415 saying to send it uncompressed, with Accept-Encoding: identity', async () => {
    const { app, reads } = bodyApp()
    const gzipped = new Uint8Array(await new Response(new Blob(['{"title":"x"}']).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer())
    for (const [coding, body] of [['gzip', gzipped], ['br', '{"title":"x"}'], ['GZIP, deflate', gzipped]] as const) {
      const response = await post(app, { headers: { ...json, 'content-encoding': coding }, body })
      expect(response.status, coding).toBe(415)
      expect(response.headers.get('accept-encoding')).toBe('identity')
      expect(await response.json()).toEqual({
        success: false,
        code: 415,
        error: `Unsupported Media Type: the body is encoded as ${coding.toLowerCase()}, which is not read; send it uncompressed (no Content-Encoding)`,
      })
    }
    expect(reads()).toBe(0)
    // identity is no coding at all.
    expect((await post(app, { headers: { ...json, 'content-encoding': 'identity' }, body: '{"title":"x"}' })).status).toBe(200)
  })

  it('a number too large to represent (1e400 parses to Infinity): 400 naming where, never the value', async () => {
    const { app } = bodyApp()
    for (const [body, at] of [
      ['{"title":"x","price":1e400}', 'price'],
      ['{"items":[{"qty":1},{"qty":-2E+999}]}', 'items.1.qty'],
      [`{"n":${'9'.repeat(400)}}`, 'n'],
      ['1e309', 'the top level'],
    ] as const) {
      const response = await post(app, { headers: json, body })
      expect(response.status, body.slice(0, 40)).toBe(400)
      expect(await response.json()).toMatchObject({ success: false, code: 400, error: `Malformed JSON body: the number at ${at} is too large to represent` })
    }
    // Nested deeper than the stack would allow a recursive walk.
    const deep = '['.repeat(100_000) + '1e400' + ']'.repeat(100_000)
    expect((await post(bodyApp(1024 * 1024).app, { headers: json, body: deep })).status).toBe(400)
  })

  it('an integer with more digits than a double holds exactly (it was read as a neighbour, silently): 400 naming where', async () => {
    const { app } = bodyApp()
    for (const [body, at] of [
      ['{"title":"x","id":9007199254740993}', 'id'],
      ['{"items":[{"qty":1},{"qty":-12345678901234567891}]}', 'items.1.qty'],
      ['18446744073709551615', 'the top level'],
    ] as const) {
      const response = await post(app, { headers: json, body })
      expect(response.status, body).toBe(400)
      expect(await response.json()).toMatchObject({
        success: false,
        code: 400,
        error: `Malformed JSON body: the integer at ${at} has more digits than can be read exactly (beyond 2^53 - 1); send it as a string`,
      })
    }
    // What a double keeps exactly passes: the largest safe integer, a power of ten, floats, the digits inside a string.
    for (const body of ['{"id":9007199254740991}', '{"id":-9007199254740991}', '{"n":10000000000000000000}', '{"n":12345678901234567890.5}', '{"n":1.2345678901234567891e5}', '{"card":"12345678901234567891","s":"a\\"12345678901234567891"}']) {
      expect((await post(app, { headers: json, body })).status, body).toBe(200)
    }
  })

  it('a key given twice in one object (JSON.parse dropped the first value without a word): 400 naming where', async () => {
    const { app } = bodyApp()
    for (const [body, at] of [
      ['{"title":"x","title":"y"}', 'title'],
      ['{"items":[{"qty":1},{"sku":"a","qty":2,"qty":3}]}', 'items.1.qty'],
      ['{"a":{"b":{}},"c":[[{"d":1}],[{"e":1,"\\u0065":2}]]}', 'c.1.0.e'],
      ['[{"k":1},{"k:":1,"k":2,"k":3}]', '1.k'],
    ] as const) {
      const response = await post(app, { headers: json, body })
      expect(response.status, body).toBe(400)
      expect(await response.json()).toMatchObject({ success: false, code: 400, error: `Malformed JSON body: the key ${at} is given twice in one object; send each key once` })
    }
    // One key per object, the same key in two objects, colons and quotes inside strings: read as they are.
    for (const body of ['{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}', '{"t":"a:b","u":"\\"x\\":1","\\"":2}', '{}', '[]', '"a:b"']) {
      expect((await post(app, { headers: json, body })).status, body).toBe(200)
    }
  })

  it('half of a surrogate pair escaped alone (not Unicode, stored as U+FFFD): 400 naming where', async () => {
    const { app } = bodyApp()
    for (const [body, at] of [
      ['{"title":"lone \\ud800 high"}', 'title'],
      ['{"items":[{"name":"ok"},{"name":"\\uDC00 low first"}]}', 'items.1.name'],
      ['{"pair":"\\ud83d\\ude00","cut":"\\ud83d"}', 'cut'],
      ['"\\udfff"', 'the top level'],
    ] as const) {
      const response = await post(app, { headers: json, body })
      expect(response.status, body).toBe(400)
      expect(await response.json()).toMatchObject({
        success: false,
        code: 400,
        error: `Malformed JSON body: the text at ${at} is not valid Unicode (half of a surrogate pair, escaped alone)`,
      })
    }
    const key = await post(app, { headers: json, body: '{"a":{"\\ud800":1}}' })
    expect(key.status).toBe(400)
    // Pairs, escaped or not, and a backslash before "ud800" are text like any other.
    const fine = await post(app, { headers: json, body: '{"emoji":"\\ud83d\\ude00 😀","text":"\\\\ud800"}' })
    expect(fine.status).toBe(200)
    expect((await fine.json()).data.body).toEqual({ emoji: '😀 😀', text: '\\ud800' })
  })

  it('large but finite numbers, tiny ones and such text in strings are read as they are', async () => {
    const { app } = bodyApp()
    const body = '{"max":1.7976931348623157e308,"tiny":1e-400,"text":"1e999 and 1e400"}'
    const response = await post(app, { headers: json, body })
    expect(response.status).toBe(200)
    expect((await response.json()).data.body).toEqual({ max: Number.MAX_VALUE, tiny: 0, text: '1e999 and 1e400' })
  })

  it('a body whose stream fails mid-read (the client went away): 400, not a 500', async () => {
    const { app } = bodyApp()
    let pulls = 0
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(new TextEncoder().encode('{"note":"half'))
        else controller.error(new Error('aborted'))
      },
    })
    const response = await post(app, { headers: json, body: broken, duplex: 'half' } as RequestInit)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ success: false, code: 400, error: 'Bad Request: the connection closed before the body was complete' })
  })

  it('a route that does not read the body does not care about its type', async () => {
    const { app } = bodyApp()
    const response = await post(app, { path: '/api/ignore', headers: { 'content-type': 'text/plain' }, body: 'hello' })
    expect(response.status).toBe(200)
  })
})

describe('body limit', () => {
  it('a body exactly at the limit is read', async () => {
    const { app } = bodyApp()
    const body = JSON.stringify({ s: 'x'.repeat(LIMIT - 8) })
    expect(body.length).toBe(LIMIT)
    expect((await post(app, { headers: json, body })).status).toBe(200)
  })

  it('a big Content-Length: 413 before anything is read', async () => {
    const { app, reads } = bodyApp()
    const response = await post(app, { headers: { ...json, 'content-length': String(10 * 1024 * 1024) }, body: '{}' })
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ success: false, code: 413, error: `Payload Too Large: the body limit is ${LIMIT} bytes` })
    expect(reads()).toBe(0)
  })

  it('a lying (small) Content-Length: 413 on the bytes actually read', async () => {
    const { app } = bodyApp()
    const response = await post(app, { headers: { ...json, 'content-length': '2' }, body: JSON.stringify({ s: 'x'.repeat(LIMIT) }) })
    expect(response.status).toBe(413)
  })

  it('no Content-Length (a stream): 413 on the bytes actually read', async () => {
    const { app } = bodyApp()
    const response = await post(app, { headers: json, body: streamOf(8, 256), duplex: 'half' } as RequestInit)
    expect(response.status).toBe(413)
    expect((await response.json()).code).toBe(413)
  })

  it('a big Content-Length through the real server: 413 without waiting for the body', async () => {
    const { app } = bodyApp()
    await withServer(app, async (server) => {
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          `${server.url}/api/echo`,
          { method: 'POST', headers: { ...json, 'content-length': String(50 * 1024 * 1024) } },
          (response) => {
            response.resume()
            resolve(response.statusCode!)
            request.destroy() // the other 50 MiB are never sent
          },
        )
        request.on('error', (error) => (request.destroyed ? undefined : reject(error)))
        request.write('{"a":') // headers and the first bytes only
      })
      expect(status).toBe(413)
    })
  })

  it('a chunked body over the limit through the real server: 413', async () => {
    const { app } = bodyApp()
    await withServer(app, async (server) => {
      const { status, body, chunked } = await new Promise<{ status: number; body: string; chunked: boolean }>((resolve, reject) => {
        const request = httpRequest(`${server.url}/api/echo`, { method: 'POST', headers: json }, (response) => {
          let text = ''
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
          response.on('end', () => resolve({ status: response.statusCode!, body: text, chunked: sentChunked }))
        })
        const sentChunked = request.getHeader('content-length') === undefined
        request.on('error', reject)
        // 16 chunks of 256 bytes: four times the limit, never announced in a Content-Length.
        let sent = 0
        const writeNext = () => {
          if (sent++ === 16) return request.end()
          request.write(' '.repeat(256), () => setImmediate(writeNext))
        }
        writeNext()
      })
      expect(chunked).toBe(true)
      expect(status).toBe(413)
      expect(JSON.parse(body)).toMatchObject({ success: false, code: 413 })
    })
  })
})
