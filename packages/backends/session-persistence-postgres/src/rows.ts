/**
 * Event rows as §4.1 records (02 §6b "Defects"): each row's checksum is recomputed first with the shared codec's
 * `recordChecksum` (a mismatch makes the row a defect, which the coordinator refuses as corruption), then the body is
 * decoded once by the shared codec and checked against the row's `seq`, `last_seq`, `kind`, `type` and `time`
 * columns. A record's marker is the seq the valid prefix would end at if the record were the first defect.
 */
import {
  checksumProblem,
  decodeRecordValue,
  recordChecksum,
  recordColumnsProblem,
  SessionPersistenceCorruptionError,
  type RecordResult,
  type ScanRecord,
} from '@logbook/session-persistence'

/** One `logbook_events` row as `selectEvents` returns it in array mode. */
export type EventRow = readonly [seq: number, lastSeq: number, kind: string, type: string, time: number, body: string, crc: number]

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

/** How many events a row claims by its columns (`last_seq − seq + 1`): what a cut at the row removes, decodable or not. */
export function coveredBy(row: EventRow): number {
  return row[1] >= row[0] ? row[1] - row[0] + 1 : 1
}

const failed = (row: EventRow, reason: string): RecordResult => ({ ok: false, reason: `row at seq ${row[0]}: ${reason}` })

/** Decode `row` as a record result: a defect when its checksum fails, its body does not decode or differs from its columns. */
export function decodeRow(row: EventRow): RecordResult {
  const mismatch = crcProblem(row[5], row[6])
  if (mismatch !== undefined) return failed(row, mismatch)
  let value: unknown
  try {
    value = JSON.parse(row[5])
  } catch {
    return failed(row, 'body is not valid JSON')
  }
  const decoded = decodeRecordValue(value)
  if (!decoded.ok) return failed(row, decoded.reason)
  const problem = recordColumnsProblem(decoded, row[0], row[1], row[2], row[3], row[4])
  return problem === undefined ? decoded : failed(row, problem)
}

/** The scan record of `row` (`marker`: the end of the previous row). */
export function rowRecord(marker: number, row: EventRow): ScanRecord<number> {
  return { marker, complete: true, result: decodeRow(row), eventCount: coveredBy(row) }
}

/** The time of the last event of a valid row (for `updated_at` after a cut); `undefined` when it does not decode. */
export function lastTimeOf(row: EventRow): number | undefined {
  const result = decodeRow(row)
  if (!result.ok) return undefined
  const time = (result.events[result.events.length - 1] as { time?: unknown } | undefined)?.time
  return typeof time === 'number' ? time : undefined
}
