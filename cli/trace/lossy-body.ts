/**
 * A trace keeps a request body as text: bytes that are not UTF-8 (an upload,
 * a gzip, Latin-1 text) are kept as their decoding, each bad byte as U+FFFD,
 * and the body is marked `truncated` so that nothing replays other bytes than
 * were sent. Replay's refusal and `svc log:trace` both say why from here.
 */
import type { CapturedBody } from '../../framework/trace/index.ts'

/** Whether a body marked not whole was kept as the lossy decoding of bytes that are not UTF-8. */
export function isLossyText(body: CapturedBody): body is CapturedBody & { content: string } {
  return body.truncated && typeof body.content === 'string' && body.content.includes('\uFFFD')
}
