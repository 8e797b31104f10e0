/**
 * The start every public operation shares (spec 02 §1.1): disposed → aborted signal → id, in that order, before any
 * I/O; the signal helpers every hook call uses (hooks always receive a signal); and the argument shapes they check.
 */
import { isValidSessionId } from '@logbook/session'
import { invalidArgument } from './errors.ts'
import type { Host } from './host.ts'
import type { OperationOptions } from './types.ts'
import { describe } from './util.ts'

/** A signal that never aborts: background work (write-behind, releases) passes it to hooks that require one. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal

/** The caller's signal, or one that never aborts. */
export function signalOf(opts: OperationOptions | undefined): AbortSignal {
  return opts?.signal ?? NEVER_ABORTED
}

/** Reject with exactly `signal.reason` when aborted (02 §1.1). */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason
}

/** True iff `value` is a non-null object and not an array (a confirmation, a query, a checkpoint). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True iff `value` is a valid `fromSeq`: a non-negative safe integer. */
export function isSeqArgument(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/**
 * The prelude: not disposed, then signal not aborted; returns the signal to pass on.
 * @throws `PERSISTENCE_DISPOSED`, or the signal's reason.
 */
export function begin(host: Pick<Host, 'assertNotDisposed'>, opts: OperationOptions | undefined): AbortSignal {
  host.assertNotDisposed()
  const signal = signalOf(opts)
  throwIfAborted(signal)
  return signal
}

/** `begin`, then the id check with core's `isValidSessionId`. @throws as `begin`, and `INVALID_ARGUMENT`. */
export function beginFor(host: Pick<Host, 'assertNotDisposed'>, opts: OperationOptions | undefined, id: unknown): AbortSignal {
  const signal = begin(host, opts)
  if (!isValidSessionId(id)) throw invalidArgument(`invalid session id ${describe(id)}`)
  return signal
}
