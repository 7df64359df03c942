/**
 * A request body of bytes that are not UTF-8 (an upload, a gzip) was kept as
 * its lossy decoding (U+FFFD for each bad byte), `truncated: false`: replay
 * then sent other bytes, silently (300 random bytes went out as 539). It is
 * now marked not whole, and replay refuses it, saying why.
 */
import { afterEach, expect, it } from 'vitest'
import { defineRoutes } from 'svc'
import { unreplayable } from '../../cli/trace/replay.ts'
import { bodyText } from '../../cli/trace/view.ts'
import { recordOf, tracedApp, type TracedApp } from './helpers.ts'

// The handler never reads the body: the tracer reads it, as for a 401 before the handler.
const api = defineRoutes((r) => {
  r.post('/upload', () => ({ ok: true }))
})

let traced: TracedApp | undefined
afterEach(async () => {
  await traced?.close()
  traced = undefined
})

function post(body: Uint8Array<ArrayBuffer>, type: string): Request {
  return new Request('http://localhost/api/upload', { method: 'POST', headers: { 'content-type': type, 'content-length': String(body.byteLength) }, body })
}

it('binary bytes are not kept whole, and replay refuses them naming the cause', async () => {
  traced = await tracedApp({ api })
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28])
  const record = await recordOf(traced, await traced.app.fetch(post(bytes, 'application/octet-stream')))
  expect(record.body).toMatchObject({ size: 10, truncated: true })
  expect(unreplayable(record)).toMatchObject({ code: 'E_TRACE_TRUNCATED', reason: expect.stringContaining('not UTF-8') })
  // svc log:trace says so too: it said `[truncated: 10 bytes in all; the start is kept above]`, of a body kept whole but lossy.
  expect(bodyText(record.body)).toBe(`${record.body.content as string}\n… [not UTF-8: 10 bytes of binary data or text in another encoding, shown decoded (each byte that is not UTF-8 as \uFFFD); the bytes sent were not kept]`)
})

it('text that itself holds U+FFFD, and any other UTF-8 text, is kept whole and replayable', async () => {
  traced = await tracedApp({ api })
  const text = 'caf\u00e9 \u65e5\u672c \uFFFD ok'
  const record = await recordOf(traced, await traced.app.fetch(post(new TextEncoder().encode(text), 'text/plain; charset=utf-8')))
  expect(record.body).toMatchObject({ content: text, truncated: false })
  expect(unreplayable(record)).toBeUndefined()
})
