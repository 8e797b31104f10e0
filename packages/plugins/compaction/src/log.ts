/**
 * A plain-array index of a session's log for the seam's scans, with the entry-state markers folded in as events
 * are indexed. `session.events` is a read-only Proxy whose index reads cost far more than an array's; the seam reads
 * the same frozen event objects through this mirror instead, topped up from `session.events` when it falls behind
 * and extended for free from `session/event` once a session has been read here. It holds references, never copies:
 * it is an index of the log, not a second conversation.
 */

import type { Session, SessionEvent } from '@logbook/session'
import type { UnmatchedStart } from './types.ts'

/** The mirror of one session and the newest markers among its events (spec 03 §2.2). */
export interface LogIndex {
  readonly events: SessionEvent[]
  endSeedSeq: number | null
  unmatchedStart: UnmatchedStart | null
  openTurn: number | null
}

const indexes = new WeakMap<Session, LogIndex>()

/** Index one more event (its seq is `index.events.length`). */
function push(index: LogIndex, event: SessionEvent): void {
  const seq = index.events.length
  index.events.push(event)
  switch (event.type) {
    case 'session/end-seed':
      index.endSeedSeq = seq
      break
    case 'compaction/start':
      index.unmatchedStart = { seq, compactionId: event.data.compactionId, turn: event.data.turn }
      break
    case 'compaction/end':
      index.unmatchedStart = null
      break
    case 'turn/start':
      index.openTurn = event.data.turn
      break
    case 'turn/end':
      index.openTurn = null
      break
    default:
      break
  }
}

/** The index of `session`, brought up to date with its log now. */
export function indexOf(session: Session): LogIndex {
  let index = indexes.get(session)
  if (index === undefined) {
    index = { events: [], endSeedSeq: null, unmatchedStart: null, openTurn: null }
    indexes.set(session, index)
  }
  const length = session.seq
  if (index.events.length < length) {
    // One `slice` of the view copies the missing events in one native step; an index read of the view is a Proxy
    // trap each (about 0.3 µs: a third of a second for a first read of a million-event log).
    for (const event of session.events.slice(index.events.length, length)) push(index, event)
  }
  return index
}

/** The events of `session` as a plain array (the same frozen objects as `session.events`), up to date now. */
export function logOf(session: Session): readonly SessionEvent[] {
  return indexOf(session).events
}

/**
 * Extend the index of `session` with a just-committed `event` (a `session/event` listener). Sessions this module
 * has never read are left alone, and an event that does not directly follow the index is skipped (`indexOf` tops
 * up from the log instead).
 */
export function observeEvent(session: Session, event: SessionEvent): void {
  const index = indexes.get(session)
  if (index !== undefined && event.seq === index.events.length) push(index, event)
}
