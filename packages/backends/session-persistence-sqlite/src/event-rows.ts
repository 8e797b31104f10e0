/**
 * Event rows as §4.1 records (02 §6 "Defects"): a row's checksum is recomputed first (schema version 2), then it is
 * decoded once and checked against its own columns; the backend adds the two SQLite-only defects (rows at or beyond
 * `next_seq`, rows missing below it). A record's marker is the seq the valid prefix would end at if the record were
 * the first defect, i.e. the end of the previous row.
 */

import { isSurfaceType, type SessionEvent } from '@logbook/session'
import {
  checksumProblem, decodeRecordValue, recordChecksum, recordColumnsProblem, recordLastTime, type EncodedRecord, type RecordResult, type ScanRecord,
} from '@logbook/session-persistence'

/**
 * One `logbook_events` row as selected by `select-events-page.sql`, in better-sqlite3's raw (array) mode: the scan
 * builds no object per row. `crc` is absent from version-1 rows, which have none (`null`: version 2, missing).
 */
export type EventRow = readonly [seq: number, lastSeq: number, kind: string, type: string, time: number, body: string, crc?: number | null]

/**
 * A row decoded and checked: when valid, the codec's result (its events, the `packed` flag and the run the
 * coordinator's fast path relies on) and the last member's time, else why not.
 */
export type CheckedRow =
  | { readonly ok: true; readonly lastTime: number; readonly result: RecordResult & { readonly ok: true } }
  | { readonly ok: false; readonly reason: string }

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['type', 'seq', 'time', 'data', 'ignorable', 'surfaceOp', 'sourceEventSeqs'])
const TYPE_PATTERN = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)+$/

const isNonNegativeSafeInteger = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0

/**
 * The envelope rule the coordinator classifies with (01 §2.2 plus the type pattern and surface-only keys), as a
 * reason, or `undefined` when it holds. It must match the seam's classification exactly, or a cut would call a real
 * defect "stale".
 */
export function envelopeProblem(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'event must be an object'
  for (const key of Object.keys(event)) if (!ENVELOPE_KEYS.has(key)) return `unknown key "${key}"`
  const e = event as { type?: unknown; seq?: unknown; time?: unknown; data?: unknown; ignorable?: unknown; surfaceOp?: unknown; sourceEventSeqs?: unknown }
  if (typeof e.type !== 'string') return 'type must be a string'
  if (!TYPE_PATTERN.test(e.type)) return `event type ${JSON.stringify(e.type)} is invalid`
  if (!isNonNegativeSafeInteger(e.seq)) return 'seq must be a non-negative safe integer'
  if (!isNonNegativeSafeInteger(e.time)) return 'time must be a non-negative safe integer'
  if (e.data === undefined) return 'data is required'
  if (e.ignorable !== undefined && e.ignorable !== true) return 'ignorable must be true when present'
  if (isSurfaceType(e.type)) {
    if (e.ignorable !== undefined) return `event "${e.type}": surface events cannot be ignorable`
  } else if (e.surfaceOp !== undefined || e.sourceEventSeqs !== undefined) {
    return `event "${e.type}" is not a surface type and cannot carry surface metadata`
  }
  return undefined
}

/**
 * How many events a row claims to hold by its columns (`last_seq − seq + 1`): the scan record's `eventCount`, so a
 * torn packed last row still counts as its members in `droppedEvents` (P-071).
 */
export function coveredBy(row: EventRow): number {
  const seq = row[0]
  const lastSeq = row[1]
  return Number.isSafeInteger(lastSeq - seq) && lastSeq >= seq ? lastSeq - seq + 1 : 1
}

/**
 * Check a row's checksum (when its schema has one), decode its body and check it against the row's `seq`,
 * `last_seq`, `kind`, `type` and `time` columns. Envelope rules are the coordinator's; `checkEnvelopes` also applies
 * them (used by the cut's check of the row it keeps last).
 */
export function checkRow(row: EventRow, checkEnvelopes = false): CheckedRow {
  const body = row[5]
  if (row[6] !== undefined) {
    const mismatch = checksumProblem(row[6], recordChecksum(body))
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
  if (problem !== undefined) return failed(row, problem)
  if (checkEnvelopes) {
    for (const event of decoded.events) {
      const envelope = envelopeProblem(event)
      if (envelope !== undefined) return failed(row, envelope)
    }
  }
  return { ok: true, lastTime: recordLastTime(decoded) as number, result: decoded }
}

/** A row that is a defect: `row at seq <seq>: <reason>`. (A module function: no closure per row on the hot path.) */
function failed(row: EventRow, reason: string): CheckedRow {
  return { ok: false, reason: `row at seq ${row[0]}: ${reason}` }
}

/** The scan record of a checked row (`marker` = the end of the previous row). */
export function scanRecord(marker: number, row: EventRow, checked: CheckedRow): ScanRecord<number> {
  const eventCount = coveredBy(row)
  return checked.ok
    ? { marker, complete: true, result: checked.result, eventCount }
    : { marker, complete: true, result: checked, eventCount }
}

/** The parameters `insert-event.sql` binds for one record (one object per batch, refilled for each record). */
export interface RowParams {
  sessionId: string
  seq: number
  lastSeq: number
  kind: string
  type: string
  time: number
  body: string
  crc: number
}

/** The parameters `insert-event.sql` binds for one encoded record of `sessionId`. */
export function rowParams(sessionId: string, record: EncodedRecord): RowParams {
  return fillRowParams({ sessionId, seq: 0, lastSeq: 0, kind: '', type: '', time: 0, body: '', crc: 0 }, record)
}

/** `params` (of the same session) set to bind `record`, and returned. */
export function fillRowParams(params: RowParams, record: EncodedRecord): RowParams {
  params.seq = record.seq
  params.lastSeq = record.lastSeq
  params.kind = record.kind
  params.type = record.type
  params.time = record.time
  params.body = record.text
  params.crc = record.crc
  return params
}
