/**
 * Compaction brackets over a whole stored log (spec 03 §2.1, §2.2, §8), replaying the very rules of
 * `@logbook/compaction/invariant` (`bracketRelations`): a violation fails; an unmatched start after the last end-seed
 * is a live lock (repairable: a resume releases it); an unmatched start that an end-seed closed is an exempt orphan
 * (ok, with a note).
 */

import { bracketRelations } from '@logbook/compaction/invariant'
import type { SessionEvent } from '@logbook/session'
import type { Finding } from './types.ts'

/** The compaction findings of `events` (at least one): the first violation alone, or notes and a verdict. */
export function checkBrackets(events: readonly SessionEvent[]): Finding[] {
  const { start, violation, advance } = bracketRelations
  const trace = start()
  const notes: Finding[] = []
  let brackets = 0
  for (const event of events) {
    const detail = violation(trace, event)
    if (detail !== undefined) return [{ severity: 'FAIL', check: 'compaction', message: detail, seq: event.seq }]
    if ((event.type as string) === 'compaction/start') brackets += 1
    // An end-seed ends the lifecycle (01 §5.4): a bracket it closes is an exempt orphan, worth a note.
    const orphan = event.type === 'session/end-seed' ? trace.bracket : null
    advance(trace, event)
    if (orphan !== null) {
      notes.push({ severity: 'ok', check: 'compaction', message: `compaction/start at seq ${orphan.seq} was orphaned; the end-seed at seq ${event.seq} exempts it`, seq: orphan.seq })
    }
  }
  if (trace.bracket !== null) {
    const { seq } = trace.bracket
    return [...notes, { severity: 'warn', check: 'compaction', message: `live lock: compaction/start at seq ${seq} was never closed; a resume releases it`, seq }]
  }
  return [...notes, { severity: 'ok', check: 'compaction', message: `${brackets} bracket${brackets === 1 ? '' : 's'}` }]
}
