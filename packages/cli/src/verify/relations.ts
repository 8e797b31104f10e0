/**
 * The turn, step and tool-call relations of 01 §9, checked over a whole stored log with the session companion's own
 * rules (`sessionRelations`): the first violation is returned as the companion words it; an open last turn is
 * reported separately (a resume closes it).
 */

import type { SessionEvent } from '@logbook/session'
import { sessionRelations } from '@logbook/session/invariant'

/** The outcome of the relation check. */
export interface RelationResult {
  /** The first violation: its seq and detail. */
  readonly violation?: { readonly seq: number; readonly detail: string }
  /** The turn still open at the end of the log. */
  readonly openTurn: number | null
}

/** Check every event of a log that starts at seq 0. */
export function checkRelations(events: readonly SessionEvent[]): RelationResult {
  const { start, violation, advance } = sessionRelations
  const trace = start()
  for (const event of events) {
    const detail = violation(trace, event)
    if (detail !== undefined) return { violation: { seq: event.seq, detail }, openTurn: trace.openTurn }
    advance(trace, event)
  }
  return { openTurn: trace.openTurn }
}
