/**
 * Event delivery with per-listener containment (spec 01 §3.1 step 11, §6.3, §6.4; 02 §1.8): Cordis `emit` lets a
 * throwing listener throw out of the emitter, so every package that must not be stopped by a listener resolves the
 * listeners itself and reports each failure instead. One failure never keeps the next listener from running.
 */

import type { EventsService } from '@deepseek-ai/cordis'
import { messageOf } from './errors.ts'

/** A listener as Cordis dispatch returns it (already bound) or as registered (called with an explicit `this`). */
export type Listener = (...args: unknown[]) => unknown

/** What failed while delivering an event: resolving its listeners, or one listener synchronously or by rejecting. */
export type DeliveryFailure = 'dispatch failed' | 'listener threw' | 'listener rejected'

/**
 * Receives each contained failure: the event name, what failed, the thrown value, and the `this` the listeners were
 * called with (`undefined` for an event without one). It is called only on failure, so it may build text freely.
 */
export type FailureSink = (event: string, failure: DeliveryFailure, error: unknown, thisArg: unknown) => void

/** The part of `ctx.events` delivery needs: Cordis's own listener resolution (context filters, `internal/dispatch`). */
export type Dispatcher = Pick<EventsService, 'dispatch'>

/** True for a value whose `then` is callable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null
    && typeof (value as { then?: unknown }).then === 'function'
}

/**
 * A sink that reports each failure as the one line `<event> <failure>: <text(error)>` through `warn` (`text`
 * defaults to `messageOf`).
 */
export function warnFailures(warn: (text: string) => void, text: (error: unknown) => string = messageOf): FailureSink {
  return (event, failure, error) => warn(`${event} ${failure}: ${text(error)}`)
}

/** When `result` is a thenable, report its rejection to `sink` as `listener rejected`; never throws for it. */
export function containRejection(sink: FailureSink, event: string, result: unknown, thisArg?: unknown): void {
  if (!isThenable(result)) return
  result.then(undefined, (error: unknown) => sink(event, 'listener rejected', error, thisArg))
}

/**
 * Call `listener` with `thisArg` and `args`: a synchronous throw reaches `sink` as `listener threw`, a rejection as
 * `listener rejected`; nothing propagates.
 */
export function callContained(
  sink: FailureSink, event: string, listener: Listener, thisArg: unknown, args: readonly unknown[],
): void {
  try {
    containRejection(sink, event, listener.apply(thisArg, args as unknown[]), thisArg)
  } catch (error) {
    sink(event, 'listener threw', error, thisArg)
  }
}

/**
 * Deliver `event` with `payload` (and `thisArg` as the dispatch `this`, when given) to every listener Cordis
 * dispatch resolves, each contained; a dispatch that throws (an `internal/dispatch` hook) reaches `sink` as
 * `dispatch failed` and no listener runs.
 */
export function emitContained(
  events: Dispatcher, sink: FailureSink, event: string, payload: readonly unknown[], thisArg?: object,
): void {
  // Cordis dispatch consumes the leading `this` and event name from `args`, leaving exactly the payload.
  const args: unknown[] = thisArg === undefined ? [event, ...payload] : [thisArg, event, ...payload]
  let listeners: Listener[]
  try {
    listeners = events.dispatch('emit', args) as Listener[]
  } catch (error) {
    sink(event, 'dispatch failed', error, thisArg)
    return
  }
  for (const listener of listeners) callContained(sink, event, listener, thisArg, args)
}
