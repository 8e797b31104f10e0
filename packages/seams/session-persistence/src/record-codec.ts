/**
 * The one record codec every backend uses (spec 02 §1.4 last paragraph): a batch of events becomes record texts
 * (scalar events in envelope key order, packed chunk runs as core `ChunkRow` JSON, never spanning batches, split at
 * 1024 members or 1 MiB), each with its checksum, and a record text becomes events again.
 */
import { crc32 } from 'node:zlib'
import {
  CHUNK_ROW_TAGS,
  ChunkRowError,
  decodeStorageRun,
  EventLog,
  eventsView,
  MIN_CHUNK_RUN,
  packChunkRuns,
  type ChunkRow,
  type PackedRun,
  type SessionEvent,
} from '@logbook/session'
import type { EncodedRecord, RecordResult } from './backend.ts'

/** Most members one packed record may hold. */
export const MAX_ROW_MEMBERS = 1024
/** Most UTF-8 bytes one packed record's text may take (1 MiB). */
export const MAX_ROW_BYTES = 1024 * 1024

type Row = ChunkRow
const ROW_TAGS: ReadonlySet<string> = new Set(CHUNK_ROW_TAGS)

/**
 * The JSON text of one event with keys in core's envelope order `type, seq, time, data, ignorable, surfaceOp,
 * sourceEventSeqs` (absent keys omitted), whatever the object's own key order.
 */
export function encodeEventText(event: SessionEvent): string {
  // Core builds every event as a plain object in envelope order: one JSON.stringify then writes the same text.
  if (inEnvelopeOrder(event)) return JSON.stringify(event)
  const e = event as SessionEvent & { surfaceOp?: unknown; sourceEventSeqs?: unknown }
  let text = '{"type":' + JSON.stringify(e.type) + ',"seq":' + JSON.stringify(e.seq) + ',"time":'
    + JSON.stringify(e.time) + ',"data":' + JSON.stringify(e.data)
  if (e.ignorable !== undefined) text += ',"ignorable":' + JSON.stringify(e.ignorable)
  if (e.surfaceOp !== undefined) text += ',"surfaceOp":' + JSON.stringify(e.surfaceOp)
  if (e.sourceEventSeqs !== undefined) text += ',"sourceEventSeqs":' + JSON.stringify(e.sourceEventSeqs)
  return text + '}'
}

const ENVELOPE_KEYS = ['type', 'seq', 'time', 'data', 'ignorable', 'surfaceOp', 'sourceEventSeqs'] as const

/** True for a plain object whose keys are `type, seq, time, data` then some of the optional keys, in that order. */
function inEnvelopeOrder(event: object): boolean {
  if (Object.getPrototypeOf(event) !== Object.prototype) return false
  let next = 0
  for (const key in event) {
    while (next < ENVELOPE_KEYS.length && ENVELOPE_KEYS[next] !== key) {
      if (next < 4) return false // a required key is missing or out of place
      next++
    }
    if (next === ENVELOPE_KEYS.length) return false // a key outside the envelope
    next++
  }
  return next >= 4
}

/**
 * The checksum of one stored record (02 §1.4): `zlib.crc32` of the UTF-8 bytes of the record's stored text, an
 * unsigned 32-bit integer. Pass the text, or its UTF-8 bytes when they are at hand (the same number either way).
 */
export function recordChecksum(text: string | Uint8Array): number {
  return crc32(text)
}

/**
 * The defect of a record whose stored checksum is not `computed` (`stored` null or undefined: the store format has a
 * checksum, this record lacks it), or `undefined` when it matches.
 */
export function checksumProblem(stored: number | null | undefined, computed: number): RecordResult | undefined {
  if (stored === computed) return undefined
  const reason = stored === null || stored === undefined
    ? 'checksum missing'
    : `checksum mismatch (stored ${hex8(stored)}, computed ${hex8(computed)})`
  return { ok: false, reason }
}

/** `n` as 8 lowercase hex digits (how messages and the JSONL framing spell a checksum). */
export function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0')
}

function scalarRecord(event: SessionEvent): EncodedRecord {
  const text = encodeEventText(event)
  return {
    text,
    crc: recordChecksum(text),
    kind: 'event',
    seq: event.seq,
    lastSeq: event.seq,
    type: event.type,
    time: event.time,
    lastTime: event.time,
  }
}

function rowFragments(row: Row): readonly string[] {
  return row.type === 'tool-call-chunks' ? row.data.args : row.data.texts
}

function rowRecord(row: Row, text: string): EncodedRecord {
  const count = rowFragments(row).length
  let lastTime = row.time0
  for (const gap of row.data.dt) lastTime += gap
  return {
    text,
    crc: recordChecksum(text),
    kind: row.type,
    seq: row.seq0,
    lastSeq: row.seq0 + count - 1,
    type: 'assistant/chunk',
    time: row.time0,
    lastTime,
  }
}

/** A sub-row over members `from … to − 1` of `row`, with core's key order. */
function subRow(row: Row, from: number, to: number): Row {
  let time0 = row.time0
  for (let i = 0; i < from; i++) time0 += row.data.dt[i]!
  const dt = row.data.dt.slice(from, to - 1)
  const seq0 = row.seq0 + from
  const { turn, step, index } = row.data
  if (row.type === 'tool-call-chunks') {
    const { id, name } = row.data
    const args = row.data.args.slice(from, to)
    const data = name === undefined ? { turn, step, index, id, dt, args } : { turn, step, index, id, name, dt, args }
    return { type: row.type, seq0, time0, data } as Row
  }
  return { type: row.type, seq0, time0, data: { turn, step, index, dt, texts: row.data.texts.slice(from, to) } } as Row
}

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8')

/**
 * Split an oversized row greedily into rows of ≤ `MAX_ROW_MEMBERS` members and ≤ `MAX_ROW_BYTES`; a group below
 * `MIN_CHUNK_RUN`, or a member that alone exceeds the cap, is emitted as scalar events. The row's members are
 * `events[first …]`.
 */
function splitRow(row: Row, events: readonly SessionEvent[], first: number, out: EncodedRecord[]): void {
  const fragments = rowFragments(row)
  const n = fragments.length
  const pieces = fragments.map(fragment => utf8(JSON.stringify(fragment)))
  const gaps = row.data.dt.map(gap => String(gap).length)
  const overheadAt = (i: number): number => utf8(JSON.stringify(subRow(row, i, i + 1))) - pieces[i]!

  const flush = (from: number, to: number): void => {
    if (to - from < MIN_CHUNK_RUN) {
      for (let i = from; i < to; i++) out.push(scalarRecord(events[first + i]!))
      return
    }
    const sub = subRow(row, from, to)
    out.push(rowRecord(sub, JSON.stringify(sub)))
  }

  let start = 0
  let size = 0
  for (let i = 0; i < n; i++) {
    if (i === start) {
      size = overheadAt(i) + pieces[i]!
      if (size > MAX_ROW_BYTES) {
        out.push(scalarRecord(events[first + i]!))
        start = i + 1
      }
      continue
    }
    // one more fragment (plus its comma) and one more gap (plus a comma once the dt array holds two)
    const grown = size + pieces[i]! + 1 + gaps[i - 1]! + (i - start >= 2 ? 1 : 0)
    if (i - start + 1 > MAX_ROW_MEMBERS || grown > MAX_ROW_BYTES) {
      flush(start, i)
      start = i
      i -= 1 // re-enter as the first member of a new group
      continue
    }
    size = grown
  }
  if (start < n) flush(start, n)
}

/**
 * Encode one batch into record texts in order. With `packChunks`, runs of ≥ `MIN_CHUNK_RUN` packable chunk events
 * become packed records (never spanning batches), each ≤ 1024 members and ≤ 1 MiB; everything else is scalar.
 * Pure: reads each event once, never mutates, never retains the batch.
 */
export function encodeBatch(events: readonly SessionEvent[], packChunks: boolean): EncodedRecord[] {
  const out: EncodedRecord[] = []
  if (!packChunks) {
    for (const event of events) out.push(scalarRecord(event))
    return out
  }
  let position = 0
  for (const record of packChunkRuns(events)) {
    if (!isChunkRow(record)) {
      out.push(scalarRecord(record))
      position += 1
      continue
    }
    const count = rowFragments(record).length
    const first = position
    position += count
    if (count <= MAX_ROW_MEMBERS) {
      const text = JSON.stringify(record)
      if (text.length <= MAX_ROW_BYTES / 3 || utf8(text) <= MAX_ROW_BYTES) {
        out.push(rowRecord(record, text))
        continue
      }
    }
    splitRow(record, events, first, out)
  }
  return out
}

function isChunkRow(record: SessionEvent | ChunkRow): record is ChunkRow {
  return !record.type.includes('/')
}

/** A decoded packed record: the validated run, its members built only when `events` is read (one class, no closure per row). */
class PackedRecord {
  readonly ok = true
  readonly packed = true
  constructor(readonly run: PackedRun) {}

  /** Built only for a caller that reads the members one by one; classification keeps the run packed. */
  get events(): readonly SessionEvent[] {
    const log = new EventLog([], this.run.seq0)
    log.pushRun(this.run)
    return eventsView(log)
  }
}

/**
 * Decode an already-parsed record value (SQLite may parse itself): a chunk row expands to its members (built frozen
 * by core), anything else is returned as one unvalidated event. The coordinator checks envelopes and contiguity.
 */
export function decodeRecordValue(value: unknown): RecordResult {
  // Scalar fast path (the restore hot path): core returns any non-row value as `[value]`, unvalidated.
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined
  if (typeof type !== 'string' || !ROW_TAGS.has(type)) return { ok: true, events: [value as SessionEvent] }
  try {
    return new PackedRecord(decodeStorageRun(value)!)
  } catch (error) {
    if (error instanceof ChunkRowError) return { ok: false, reason: error.message }
    throw error
  }
}

/** Decode one record text (no trailing newline): parse once, then `decodeRecordValue`. */
export function decodeRecordText(text: string): RecordResult {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'record is not valid JSON' }
  }
  return decodeRecordValue(value)
}
