/**
 * Reads a JSON request body with a byte limit enforced on what is actually
 * read (a client can lie in Content-Length or stream chunked).
 */
import { HttpError } from './http-error.ts'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit)
  if (request.body === null) return {}

  const text = await readTextWithin(request.body, limit)
  if (text.trim() === '') return {}

  const type = request.headers.get('content-type')
  if (!isJsonType(type)) {
    throw new HttpError(415, `Unsupported Media Type: send the body as application/json (got ${type ?? 'no Content-Type'})`)
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, `Malformed JSON body: ${(error as Error).message}`)
  }
}

export function isJsonType(type: string | null): boolean {
  if (type === null) return false
  const essence = type.split(';', 1)[0]!.trim().toLowerCase()
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'))
}

async function readTextWithin(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  const bytes = chunks.length === 1 ? chunks[0]! : concat(chunks, size)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new HttpError(400, 'Malformed JSON body: not valid UTF-8')
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Payload Too Large: the body limit is ${limit} bytes`)
}
