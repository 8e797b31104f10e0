/**
 * Entry state (spec 03 §2.2): the newest `session/end-seed`, the newest compaction marker and the newest turn
 * marker of a session, which decide the lock, its end-seed exemption and the owner of a new bracket.
 */

import type { Session } from '@logbook/session'
import { indexOf } from './log.ts'
import type { EntryState } from './types.ts'

/**
 * The entry state of `session`. It equals §2.2's backward scan (newest end-seed; newest compaction marker, a start
 * meaning an unmatched start and an end meaning none; newest turn marker, a `turn/start` meaning an open turn),
 * folded forward as the seam indexes the log, so repeated calls read only new events. The unmatched start is the
 * live `lock` unless a later `session/end-seed` ended its lifecycle.
 */
export function entryState(session: Session): EntryState {
  const { endSeedSeq, unmatchedStart, openTurn } = indexOf(session)
  const live = unmatchedStart !== null && (endSeedSeq === null || endSeedSeq < unmatchedStart.seq)
  return { endSeedSeq, unmatchedStart, lock: live ? unmatchedStart : null, openTurn }
}
