/**
 * The event rows of a row store (02 §6 "Defects", §6b "Defects"), as SQLite and PostgreSQL select them: each row is
 * checked and decoded once into a §4.1 record, and a scan's rows become its records plus the two defects only a row
 * store has (a row reaching beyond the stored next seq; rows missing below it). A record's marker is the seq the valid
 * prefix would end at if the record were the first defect: the end of the previous row.
 */
import type { RecordResult, ScanRecord } from './backend.ts'
import { SessionPersistenceError } from './errors.ts'
import { checksumProblem, decodeRecordText, decodeRecordValue, MAX_ROW_MEMBERS, recordChecksum } from './record-codec.ts'
import { recordColumnsProblem, recordLastTime } from './record-columns.ts'

/**
 * One event row in array form: its indexed columns, its body and its checksum. `crc` is absent where the store format
 * has no checksum (SQLite schema version 1) and `null` where the format has one and the row lacks it.
 */
export type EventRowColumns = readonly [seq: number, lastSeq: number, kind: string, type: string, time: number, body: string, crc?: number | null]

/** How far before its seq a seek's rows start: a packed row holds at most `MAX_ROW_MEMBERS` members. */
export const ROW_SEEK_WINDOW = MAX_ROW_MEMBERS - 1

/**
 * `SESSION_CONFLICT` for a cut at `marker` that the rows do not allow (`repair is stale (cut at seq N: why)`): the
 * marker does not start a record, or the row before it does not check. Nothing is deleted.
 */
function staleCutError(sessionId: string, marker: number, why: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_CONFLICT', `session "${sessionId}": repair is stale (cut at seq ${marker}: ${why})`, {
    sessionId,
    details: { marker },
  })
}

/**
 * How many events `row` claims by its columns (`last_seq − seq + 1`, or 1 when they make no sense): what a cut at the
 * row removes, decodable or not, so a torn packed last row still counts as its members in `droppedEvents` (P-071).
 */
export function eventRowCount(row: EventRowColumns): number {
  const span = row[1] - row[0]
  return Number.isSafeInteger(span) && span >= 0 ? span + 1 : 1
}

/** A row that is a defect: `row at seq <seq>: <reason>`. (A module function: no closure per row on the hot path.) */
function failed(row: EventRowColumns, reason: string): RecordResult {
  return { ok: false, reason: `row at seq ${row[0]}: ${reason}` }
}

/**
 * `row` as a record result: its checksum recomputed first (when the format has one), then its body decoded once by the
 * shared codec and checked against the row's `seq`, `last_seq`, `kind`, `type` and `time` columns. A defect when any
 * of these fails; envelopes are the coordinator's to check.
 */
export function decodeEventRow(row: EventRowColumns): RecordResult {
  const body = row[5]
  const crc = row[6]
  if (crc !== undefined) {
    const mismatch = checksumProblem(crc, recordChecksum(body))
    if (mismatch !== undefined && !mismatch.ok) return failed(row, mismatch.reason)
  }
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return failed(row, 'body is not valid JSON')
  }
  const decoded = decodeRecordValue(value)
  if (!decoded.ok) return failed(row, decoded.reason)
  const problem = recordColumnsProblem(decoded, row[0], row[1], row[2], row[3], row[4])
  return problem === undefined ? decoded : failed(row, problem)
}

/**
 * The time of the last event of `row` when it decodes as `decodeEventRow` decodes it and that time is a non-negative
 * safe integer, else `undefined`.
 */
function eventRowLastTime(row: EventRowColumns): number | undefined {
  const result = decodeEventRow(row)
  if (!result.ok) return undefined
  const time = recordLastTime(result)
  return typeof time === 'number' && Number.isSafeInteger(time) && time >= 0 ? time : undefined
}

/**
 * Whether a cut of session `sessionId` at `marker` may go ahead (02 §6, §6b "Cut"), and the session's `updated_at`
 * after it: the marker is a seq of the log (0 … `nextSeq`), and unless it is 0, `before` — the row the store holds
 * last below the marker — ends right before it and checks as every read checks it; its last event's time is the new
 * `updated_at` (`createdAt` for a cut at 0). Staleness of the scan is the caller's revision check.
 * @throws SessionPersistenceError `SESSION_CONFLICT` "repair is stale"; the caller deletes nothing.
 */
export function cutUpdatedAt(sessionId: string, marker: number, nextSeq: number, createdAt: number, before: EventRowColumns | undefined): number {
  if (!Number.isSafeInteger(marker) || marker < 0 || marker > nextSeq) throw staleCutError(sessionId, marker, 'not a seq of this log')
  if (marker === 0) return createdAt
  if (before === undefined || before[1] !== marker - 1) throw staleCutError(sessionId, marker, 'no row ends right before it')
  const time = eventRowLastTime(before)
  if (time === undefined) throw staleCutError(sessionId, marker, 'the row before it is not valid')
  return time
}

/**
 * A full scan's event row as a row store selects it when the store compares the indexed columns with the body itself:
 * the body, its checksum (`null` where the format has one and the row lacks it) and the store's word on the columns:
 * `null` for a scalar row whose columns agree with its body, the `last_seq` column of a packed row whose other columns
 * agree, anything else for a row whose columns do not (see `checkedBodyRecords`).
 */
export type CheckedBodyRow = readonly [body: string, crc: number | null, columns: number | null]

/**
 * A full scan's records from rows whose columns the store compared with their bodies (in SQL: `seq`, `type`, `kind`
 * and `time` with the envelope the body text starts with, as the shared codec writes it, and a scalar row's
 * `last_seq` with its `seq`), or `undefined` when this quick path cannot vouch for the log: a row the store found in
 * disagreement, a packed row whose `last_seq` is not its run's end, a checksum that fails, a body that does not
 * decode, decoded seqs that are not contiguous from 0 to `nextSeq`. The records are then those `EventRowRecords`
 * makes of the same log's full columns, which the caller reads instead; they find the defect and name it.
 */
export function checkedBodyRecords(rows: readonly CheckedBodyRow[], nextSeq: number): { readonly records: ScanRecord<number>[]; readonly startSeq: 0 } | undefined {
  const records: ScanRecord<number>[] = []
  let end = 0
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    const body = row[0]
    if (row[1] !== recordChecksum(body)) return undefined
    const result = decodeRecordText(body)
    if (!result.ok) return undefined
    const { run } = result
    let count = 1
    if (run !== undefined) {
      if (run.seq0 !== end || row[2] !== end + run.length - 1) return undefined
      count = run.length
    } else if (row[2] !== null || result.events.length !== 1 || (result.events[0] as { seq?: unknown } | null)?.seq !== end) {
      return undefined
    }
    records.push({ marker: end, complete: true, result, eventCount: count })
    end += count
  }
  return end === nextSeq ? { records, startSeq: 0 } : undefined
}

/**
 * A scan's records built from its event rows, added in seq order one batch (a page, or all) at a time, then finished
 * once. Rows ending before `fromSeq` (a seek's window reaches back one packed row) are skipped; `fromSeq` 0 is a full
 * scan. Rows are walked by index, not through an iterator: a cold resume runs this loop in V8's interpreter for
 * thousands of rows, where each iterator step and destructuring costs.
 */
export class EventRowRecords {
  readonly records: ScanRecord<number>[] = []
  /** The seq the records start at: the first row's seq, or `fromSeq` when a seek lands inside a packed row. */
  startSeq: number
  /** The end of the last row added (`undefined` before the first). */
  private end: number | undefined

  constructor(private readonly nextSeq: number, private readonly fromSeq: number) {
    this.startSeq = fromSeq
  }

  /** One record per row of `rows` ending at or after `fromSeq`: the row decoded, or a defect when it reaches beyond the next seq. */
  add(rows: readonly EventRowColumns[]): void {
    const { records, nextSeq, fromSeq } = this
    let end = this.end
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const lastSeq = row[1]
      if (lastSeq < fromSeq) continue
      if (end === undefined) {
        this.startSeq = Math.min(row[0], fromSeq)
        end = this.startSeq
      }
      const result: RecordResult = lastSeq >= nextSeq
        ? { ok: false, reason: `row at seq ${row[0]} reaches beyond the stored next seq ${nextSeq}` }
        : decodeEventRow(row)
      records.push({ marker: end, complete: true, result, eventCount: eventRowCount(row) })
      end = Math.max(end, lastSeq + 1)
    }
    this.end = end
  }

  /** The records, with a defect for the rows missing below the stored next seq when the rows stop short of it. Call once. */
  finish(): { readonly records: ScanRecord<number>[]; readonly startSeq: number } {
    let end = this.end
    if (end === undefined) {
      this.startSeq = Math.min(this.fromSeq, this.nextSeq)
      end = this.startSeq
    }
    if (end < this.nextSeq) {
      this.records.push({
        marker: end,
        complete: true,
        result: { ok: false, reason: `rows from seq ${end} below the stored next seq ${this.nextSeq} are missing` },
      })
    }
    return { records: this.records, startSeq: this.startSeq }
  }
}
