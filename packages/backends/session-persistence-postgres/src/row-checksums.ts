/**
 * Checksums of this store's rows (02 §6b "Defects"): the session row's header, a checkpoint's body and a listing's
 * tail record are each checked against their stored checksum with the shared codec's `recordChecksum`; event rows are
 * decoded and checked by the seam (`EventRowRecords`). A mismatch is corruption, and nothing is rewritten.
 */
import { checksumProblem, recordChecksum, SessionPersistenceCorruptionError } from '@logbook/session-persistence'

/** Why `text` does not match its stored checksum `crc` (`checksum mismatch (stored …, computed …)`), or `undefined`. */
export function crcProblem(text: string, crc: number | null): string | undefined {
  const problem = checksumProblem(crc, recordChecksum(text))
  return problem === undefined || problem.ok ? undefined : problem.reason
}

/** `SESSION_CORRUPT` for `what` (the header row, a record) failing its checksum; nothing is rewritten. */
export function checksumMismatch(sessionId: string, what: string, reason: string, seq?: number): SessionPersistenceCorruptionError {
  const detail = `${what}: ${reason}`
  return new SessionPersistenceCorruptionError(`session "${sessionId}": corrupt log: ${detail}`, {
    sessionId,
    detail,
    ...(seq === undefined ? {} : { seq }),
  })
}
