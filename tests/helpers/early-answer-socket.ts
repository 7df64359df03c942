/**
 * A raw keep-alive socket that sends a POST answered before its body is read
 * (the rest of the body sent once the answer came), then a GET on the same
 * connection: what each server adapter must answer both of.
 */
import { connect, type Socket } from 'node:net'

/** Collects what a socket receives; `until(n)` resolves once `n` answers (by their status lines) arrived, or the socket closed. */
export function receiver(socket: Socket) {
  let text = ''
  let closed = false
  const waiters: Array<() => void> = []
  const wake = () => waiters.splice(0).forEach((w) => w())
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => ((text += chunk), wake()))
  socket.on('close', () => ((closed = true), wake()))
  socket.on('error', () => {})
  // A status line follows the previous answer's body directly: not at a line start.
  const statuses = () => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
  return {
    statuses,
    text: () => text,
    traceIds: () => [...text.matchAll(/x-service-trace-id: (\S+)/gi)].map((m) => m[1]!),
    async until(count: number): Promise<number[]> {
      while (statuses().length < count && !closed) await new Promise<void>((resolve) => waiters.push(resolve))
      return statuses()
    },
  }
}

/**
 * Sends a POST whose head and `first` bytes of body go at once; once the answer to it
 * arrived, the rest of the body, then a GET on the same connection.
 */
export async function earlyAnsweredThenReused(port: number, path: string, size: number, chunked: boolean, first = 65_536): Promise<{ statuses: number[]; traceIds: string[]; text: string }> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  const got = receiver(socket)
  const body = Buffer.from(JSON.stringify({ note: 'x'.repeat(size) }))
  const framed = (part: Buffer) => (chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part)
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`)
  socket.write(framed(body.subarray(0, first)))
  if ((await got.until(1)).length !== 1) throw new Error(`no answer to the POST: ${got.text()}`)
  for (let offset = first; offset < body.length; offset += 65_536) socket.write(framed(body.subarray(offset, offset + 65_536)))
  if (chunked) socket.write('0\r\n\r\n')
  socket.write('GET /api/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  const statuses = await got.until(2)
  socket.destroy()
  return { statuses, traceIds: got.traceIds(), text: got.text() }
}
