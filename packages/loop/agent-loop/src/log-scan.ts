/** Scans of a session log from its newest event back: the next turn number and the request header in force. */

import type { RequestHeader, SessionEvent } from '@logbook/session'

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
