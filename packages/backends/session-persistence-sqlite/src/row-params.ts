/**
 * The parameters of an event row's insert (02 §6 "Append"): one encoded record's columns, body and checksum, as
 * `insert-event.sql` binds them. Reading rows back is the seam's `EventRowRecords`.
 */

import type { EncodedRecord } from '@logbook/session-persistence'

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
