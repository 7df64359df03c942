/**
 * The messages between the trace detail webview and the extension, tagged by
 * `type`. Types only: imported by both sides.
 */
import type { ReplayJson, TraceRecordJson } from '../../cli/contract/traces.ts'

/** Webview → extension. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'replay'; traceId: string }
  | { type: 'replayDiff'; traceId: string }
  | { type: 'copyCurl'; traceId: string }
  | { type: 'createTest'; traceId: string }
  | { type: 'openSource'; file: string; line: number; column: number }

/** Extension → webview. */
export type PanelMessage =
  | { type: 'trace'; trace: TraceRecordJson }
  | { type: 'busy'; action: 'replay' | 'replayDiff' | 'copyCurl' | 'createTest' }
  | { type: 'replayResult'; replay: ReplayJson }
  | { type: 'notice'; message: string }
  | { type: 'error'; message: string }

export const WEBVIEW_MESSAGE_TYPES = ['ready', 'replay', 'replayDiff', 'copyCurl', 'createTest', 'openSource'] as const

/** Messages from the webview are checked before they are acted on. */
export function isWebviewMessage(value: unknown): value is WebviewMessage {
  if (typeof value !== 'object' || value === null) return false
  const message = value as Record<string, unknown>
  switch (message.type) {
    case 'ready':
      return true
    case 'replay':
    case 'replayDiff':
    case 'copyCurl':
    case 'createTest':
      return typeof message.traceId === 'string'
    case 'openSource':
      return typeof message.file === 'string' && typeof message.line === 'number' && typeof message.column === 'number'
    default:
      return false
  }
}
