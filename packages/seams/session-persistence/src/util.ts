/** Small shared helpers of the coordinator: signals, lossless-JSON equality, argument errors. */
import { SessionPersistenceError } from './errors.ts'
import type { OperationOptions } from './types.ts'

/** A signal that never aborts: background work (write-behind, releases) passes it to hooks that require one. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal

/** The caller's signal, or one that never aborts (hooks always receive a signal). */
export function signalOf(opts: OperationOptions | undefined): AbortSignal {
  return opts?.signal ?? NEVER_ABORTED
}

/** Reject with exactly `signal.reason` when aborted (02 §1.1). */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason
}

/** True iff `value` is a valid `fromSeq`: a non-negative safe integer. */
export function isSeqArgument(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** The message prefix every error about one session carries (02 §1.7): `session "<id>": `. */
export function about(sessionId: string): string {
  return `session "${sessionId}": `
}

/** `INVALID_ARGUMENT` with a `session "<id>": ` prefix when an id is involved. */
export function invalidArgument(message: string, sessionId?: string, cause?: unknown): SessionPersistenceError {
  return new SessionPersistenceError('INVALID_ARGUMENT', sessionId === undefined ? message : about(sessionId) + message, {
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(cause === undefined ? {} : { cause }),
  })
}

/** True iff `a` and `b` are structurally equal JSON values, key order ignored (02 §0 "lossless-equal"). */
export function losslessEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!losslessEqual(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  for (const key of ka) {
    if (!Object.hasOwn(b, key)) return false
    if (!losslessEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false
  }
  return true
}

/** A printable summary of an unknown value for messages (strings quoted); the exhaustiveness guard. */
export { assertNever, describeValue as describe } from '@logbook/session'
