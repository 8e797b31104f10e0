/**
 * The shared engine of trace-based invariant companions (01 §9 here, the compaction brackets of 03 §8): a companion
 * states its relations as a fold over the log, and this module replays, vetoes and advances it the same way for all.
 */

import type { Context } from '@deepseek-ai/cordis'
import { SessionInvariantError } from './errors.ts'
import type { Session } from './session.ts'
import type {} from './session-store.ts'
import type { SessionEvent } from './types.ts'

/** The relations one companion enforces, as a fold over a session's log from seq 0. */
export interface TracedRelations<T> {
  /** A fresh trace, standing before the first event. */
  readonly start: () => T
  /** The detail of the first relation `event` breaks against `trace`, or `undefined`; never mutates `trace`. */
  readonly violation: (trace: T, event: SessionEvent) => string | undefined
  /** Move `trace` past `event`; called only once `violation` found nothing. */
  readonly advance: (trace: T, event: SessionEvent) => void
}

/** Replay a session's whole log into a fresh trace. @throws SessionInvariantError on the first violation. */
function replay<T>(relations: TracedRelations<T>, session: Session): T {
  const trace = relations.start()
  for (const event of session.events) {
    const detail = relations.violation(trace, event)
    if (detail !== undefined) throw new SessionInvariantError(session.id, detail)
    relations.advance(trace, event)
  }
  return trace
}

/**
 * Enforce `relations` on every session of `ctx.sessions`, keeping one trace per session: replay the sessions already
 * there, rebuild a trace at each `session/created` (a violation there rolls the creation back), and veto violating
 * appends through one check whose commit callback advances the trace, so a vetoed candidate never does.
 * @throws SessionInvariantError `SESSION_INVARIANT` when a session already in the store breaks a relation.
 */
export function enforceTracedRelations<T>(ctx: Context, relations: TracedRelations<T>): void {
  const traces = new WeakMap<Session, T>()
  for (const session of ctx.sessions.list()) traces.set(session, replay(relations, session))
  ctx.on('session/created', (session) => {
    traces.set(session, replay(relations, session))
  })
  ctx.sessions.addCheck((session, candidate) => {
    let trace = traces.get(session)
    if (trace === undefined) {
      trace = replay(relations, session)
      traces.set(session, trace)
    }
    const detail = relations.violation(trace, candidate)
    if (detail !== undefined) throw new SessionInvariantError(session.id, detail)
    const current = trace
    return () => relations.advance(current, candidate)
  })
}
