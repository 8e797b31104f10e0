/**
 * Small helpers of the loop: error codes and messages of thrown values (from `@logbook/llm`), lossless-JSON
 * equality, and scans of the log for the newest turn and request header.
 */

import type { RequestHeader, SessionEvent } from '@logbook/session'

/** The UPPER_SNAKE `code` and the message of a thrown value: the model seam's helpers, shared. */
export { codeOf, messageOf } from '@logbook/llm'

/** Structural equality of JSON values (lossless JSON, 01 §3.2), key order ignored; absent equals `undefined`. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  const left = a as { readonly [key: string]: unknown }
  const right = b as { readonly [key: string]: unknown }
  const keys = Object.keys(left).filter(key => left[key] !== undefined)
  return keys.length === Object.keys(right).filter(key => right[key] !== undefined).length
    && keys.every(key => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
}

/** 1 + the highest logged `turn/start` number (turn numbers only grow, so the newest one is the highest). */
export function nextTurnNumber(events: readonly SessionEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start') return event.data.turn + 1
  }
  return 1
}

/** The newest `request/header` at or before index `end` (default: the last event). */
export function newestHeader(events: readonly SessionEvent[], end = events.length - 1): RequestHeader | undefined {
  for (let i = Math.min(end, events.length - 1); i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'request/header') return event.data.header
  }
  return undefined
}
