/**
 * Calling store listeners with per-listener containment (spec 01 §3.1 step 11, §6.3, §6.4): Cordis `emit` does not
 * contain listener errors, so the store calls each resolved listener itself and logs what it may not propagate.
 */
import { printValue } from './errors.ts'
import type { Session } from './session.ts'
import type { SessionEvent } from './types.ts'

/** A resolved listener; Cordis hands them out already bound to the dispatch `this`. */
export type Listener = (...args: unknown[]) => unknown

/** Where contained failures are logged (the store's `ctx.logger('sessions')`, at warn level). */
export interface Warner {
  warn(text: string): void
}

/** True for a value whose `then` is callable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null
    && typeof (value as { then?: unknown }).then === 'function'
}

/** When `result` is a thenable, log its rejection as `session "<id>": <name> listener rejected: <error>`. */
export function logRejection(log: Warner, session: Session, name: string, result: unknown): void {
  if (!isThenable(result)) return
  result.then(undefined, (error: unknown) => {
    log.warn(`session "${session.id}": ${name} listener rejected: ${printValue(error)}`)
  })
}

/**
 * Call `listener` with `this = session` and `(session)`, or `(session, event)` when an event is given. A synchronous
 * throw is logged as `session "<id>": <name> listener threw: <error>`, a rejection as `… rejected: …`.
 */
export function callContained(
  log: Warner, name: string, listener: Listener, session: Session, event?: SessionEvent,
): void {
  try {
    logRejection(log, session, name, event === undefined ? listener.call(session, session) : listener.call(session, session, event))
  } catch (error) {
    log.warn(`session "${session.id}": ${name} listener threw: ${printValue(error)}`)
  }
}
