/**
 * A plain-array index of a session's log for the seam's scans, with the entry-state markers folded in as events
 * are indexed. `session.events` is a read-only Proxy whose index reads cost far more than an array's; the seam reads
 * the same frozen event objects through this mirror instead, topped up from `session.events` when it falls behind
 * and extended for free from `session/event` once a session has been read here. It holds references, never copies:
 * it is an index of the log, not a second conversation. A streaming chunk (`assistant/chunk`) is never a surface
 * node nor a marker, so its slot holds `undefined` and it is never read: a restored log keeps its packed chunk runs
 * unbuilt (`session.typeAt` tells a chunk without building it).
 */

import type { Session, SessionEvent } from '@logbook/session'
import type { UnmatchedStart } from './types.ts'

/** The mirror of one session and the newest markers among its events (spec 03 §2.2). */
export interface LogIndex {
  /** By seq: the event, or `undefined` for a streaming chunk. */
  readonly events: (SessionEvent | undefined)[]
  endSeedSeq: number | null
  unmatchedStart: UnmatchedStart | null
  openTurn: number | null
}

const indexes = new WeakMap<Session, LogIndex>()

const CHUNK = 'assistant/chunk'

/** Index one more event (its seq is `index.events.length`). */
function push(index: LogIndex, event: SessionEvent): void {
  const seq = index.events.length
  index.events.push(event.type === CHUNK ? undefined : event)
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
  const events = index.events
  if (events.length < length) {
    // Chunks, most of a streamed log, are passed by type alone; each stretch between them is copied with one `slice`
    // of the view (an index read of it is a Proxy trap each).
    const view = session.events
    for (let seq = events.length; seq < length;) {
      if (session.typeAt(seq) === CHUNK) {
        events.push(undefined)
        seq++
        continue
      }
      let end = seq + 1
      while (end < length && session.typeAt(end) !== CHUNK) end++
      for (const event of view.slice(seq, end)) push(index, event)
      seq = end
    }
  }
  return index
}

/**
 * The events of `session` by seq as a plain array, up to date now: the same frozen objects as `session.events`,
 * except that a streaming chunk (`assistant/chunk`, never a surface node) reads as `undefined` and is never built.
 */
export function logOf(session: Session): readonly (SessionEvent | undefined)[] {
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
