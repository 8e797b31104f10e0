/**
 * Event rows as §4.1 records (02 §6b "Defects"): each row's checksum is recomputed first with the shared codec's
 * `recordChecksum` (a mismatch makes the row a defect, which the coordinator refuses as corruption), then the body is
 * decoded once by the shared codec and checked against the row's `seq`, `last_seq`, `kind`, `type` and `time`
 * columns. A record's marker is the seq the valid prefix would end at if the record were the first defect.
 */
import { CHUNK_ROW_TAGS } from '@logbook/session'
import {
  checksumProblem,
  decodeRecordValue,
  recordChecksum,
  SessionPersistenceCorruptionError,
  type RecordResult,
  type ScanRecord,
} from '@logbook/session-persistence'

/** One `logbook_events` row as `selectEvents` returns it in array mode. */
export type EventRow = readonly [seq: number, lastSeq: number, kind: string, type: string, time: number, body: string, crc: number]

const TAGS: ReadonlySet<unknown> = new Set(CHUNK_ROW_TAGS)

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

/** The problem of a decoded row against its columns, or `undefined`. */
function columnProblem(row: EventRow, value: unknown, decoded: RecordResult & { ok: true }): string | undefined {
  const { run } = decoded
  let firstType: unknown, firstSeq: unknown, firstTime: unknown, lastSeq: unknown
  if (run !== undefined) {
    // A packed row's ends come from the run itself: its members stay unbuilt (01 §10).
    firstType = 'assistant/chunk'
    firstSeq = run.seq0
    firstTime = run.firstTime
    lastSeq = run.seq0 + run.length - 1
  } else {
    const { events } = decoded
    if (events.length === 0) return 'holds no event'
    // Unvalidated: a body may be any JSON value (`null` included), which then disagrees with the columns.
    const first = events[0] as { type?: unknown; seq?: unknown; time?: unknown } | null
    const last = events[events.length - 1] as { seq?: unknown } | null
    firstType = first?.type
    firstSeq = first?.seq
    firstTime = first?.time
    lastSeq = last?.seq
  }
  const tag = run !== undefined ? run.tag : typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined
  const kind = TAGS.has(tag) ? tag as string : 'event'
  if (kind !== row[2]) return `body kind ${kind} differs from kind column ${row[2]}`
  if (firstSeq !== row[0]) return `body seq ${String(firstSeq)} differs from seq column`
  if (lastSeq !== row[1]) return `body last seq ${String(lastSeq)} differs from last_seq column ${row[1]}`
  if (firstType !== row[3]) return `body type ${String(firstType)} differs from type column ${row[3]}`
  if (firstTime !== row[4]) return `body time ${String(firstTime)} differs from time column ${row[4]}`
  return undefined
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
  const problem = columnProblem(row, value, decoded)
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
