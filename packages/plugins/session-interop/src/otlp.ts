/**
 * OTLP/JSON building blocks: attribute values (64-bit integers as strings, as OTLP/JSON encodes them), nanosecond
 * timestamps, and trace and span ids derived from the session (hex, 16 and 8 bytes), so exporting the same log twice
 * gives the same bytes.
 */

import { digest } from './content.ts'
import type { OtlpAttribute, OtlpValue } from './types.ts'

/** OTLP `SPAN_KIND_INTERNAL`: work inside the process (an agent turn, a tool call). */
export const SPAN_KIND_INTERNAL = 1
/** OTLP `SPAN_KIND_CLIENT`: a request to a remote service (a model request). */
export const SPAN_KIND_CLIENT = 3
/** OTLP `STATUS_CODE_ERROR`. */
export const STATUS_ERROR = 2

/** An attribute value; `undefined` values are left out by `attributes`. */
export type AttributeInput = string | number | boolean | readonly string[] | undefined

function valueOf(value: string | number | boolean | readonly string[]): OtlpValue {
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value }
  return { arrayValue: { values: value.map(item => ({ stringValue: item })) } }
}

/** OTLP attributes from `entries`, in order, skipping undefined values. */
export function attributes(entries: readonly (readonly [string, AttributeInput])[]): OtlpAttribute[] {
  return entries.flatMap(([key, value]) => (value === undefined ? [] : [{ key, value: valueOf(value) }]))
}

/** Epoch milliseconds as OTLP's decimal nanoseconds string. */
export function nanos(ms: number): string {
  return (BigInt(ms) * 1_000_000n).toString()
}

/** The trace id of one turn of a session. */
export function traceIdOf(sessionId: string, turn: number): string {
  return digest('logbook-otel-trace', sessionId, String(turn)).slice(0, 32)
}

/** The id of the span an event opens. */
export function spanIdOf(sessionId: string, seq: number): string {
  return digest('logbook-otel-span', sessionId, String(seq)).slice(0, 16)
}
