/**
 * `svc/trace`: request traces. Capture (through the `Tracer` hook of
 * `createApp`), redaction, N+1 detection, the bounded batch writer, the batch
 * codec and the libSQL store, and the record format the trace commands read.
 * An app needs none of it (the CLI wires the tracer); a custom setup (a
 * Workers app with its own sink, a tool reading traces) imports it from here.
 * See docs/traces.md.
 */
export { createTracer, type SvcTracer, type TracerOptions } from './tracer.ts'
export { resolveTraceConfig, DEFAULT_REDACTED_FIELDS, DEFAULT_REDACTED_HEADERS, type TraceConfig, type TraceMode } from './config.ts'
export { TraceStore, storeSink, compileFilter, rowOf, TRACE_SCHEMA, statusRanges, type TraceFilter, type TraceRow, type TraceSink } from './store.ts'
export { pathMatcher } from './path-glob.ts'
export { TraceWriter, type WriterStats } from './writer.ts'
export { Redactor } from './redact.ts'
export { sqlShape, detectNPlusOne } from './sql-shape.ts'
export { type RawTrace, type RawBody, type PendingTrace, type BodyRead } from './capture.ts'
export { appFrame, buildRecord, createRecordBuilder, type RecordBuilder } from './record-builder.ts'
export { BatchEncoder, decodeBatch, encodeBatch, type EncodedBatch } from './batch-codec.ts'
export * from './record.ts'
export type { EventTiming, ListenerTiming, MiddlewareTiming, RequestRecorder, Tracer } from './recorder.ts'
export { createTraceId, TRACE_ID_PATTERN } from './trace-id.ts'
