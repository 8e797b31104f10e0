/**
 * Helpers for backends' damage kits (spec 02 §9): edits every backend makes the same way, so a case means the same
 * damage on each.
 */

import { decodeRecordValue } from '@logbook/session-persistence'

const TIME_KEYS = ['"time":', '"time0":'] as const

/** Where a row store's `appendRawRecord` puts `text`, and the columns it gives the row. */
export interface RawRecordRow {
  readonly firstSeq: number
  readonly lastSeq: number
  /** `event`, or the chunk row tag the text names. */
  readonly kind: string
  /** The first event's type, else `unknown/record`. */
  readonly type: string
  /** The first event's time, else 0. */
  readonly time: number
  /** The last event's time, when the text extends the log at `nextSeq` with a safe-integer time. */
  readonly extendsAt: number | undefined
}

const CHUNK_KINDS: readonly string[] = ['text-chunks', 'reasoning-chunks', 'tool-call-chunks']

/**
 * The row a row store's damage kit stores for raw record `text` after a log whose stored rows end before `end` and
 * whose session row says `nextSeq`: text that decodes to events at `end` or later is placed at their seqs, anything
 * else (garbage, a bad shape) becomes a one-seq defect at `end`, so SQLite and PostgreSQL store the same damage.
 */
export function rawRecordRow(text: string, end: number, nextSeq: number): RawRecordRow {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const decoded = parsed === undefined ? undefined : decodeRecordValue(parsed)
  const list = decoded?.ok === true ? decoded.events as readonly { type?: unknown; seq?: unknown; time?: unknown }[] : []
  const first = list[0]
  const firstSeq = typeof first?.seq === 'number' && Number.isSafeInteger(first.seq) && first.seq >= end ? first.seq : end
  const lastSeq = firstSeq + Math.max(0, list.length - 1)
  const tag = (parsed as { type?: unknown } | undefined)?.type
  const lastTime = (list.at(-1) as { time?: unknown } | undefined)?.time
  return {
    firstSeq,
    lastSeq,
    kind: typeof tag === 'string' && CHUNK_KINDS.includes(tag) ? tag : 'event',
    type: typeof first?.type === 'string' ? first.type : 'unknown/record',
    time: typeof first?.time === 'number' && Number.isSafeInteger(first.time) ? first.time : 0,
    extendsAt: firstSeq === nextSeq && typeof lastTime === 'number' && Number.isSafeInteger(lastTime) ? lastTime : undefined,
  }
}

/**
 * `text` (a record's JSON) with the last digit of its first `time` (or packed `time0`) value changed: the record keeps
 * its JSON shape and stays a valid event, so only its checksum can tell (`corruptRecord(…, 'checksum')`).
 * @throws Error when the text holds no such number.
 */
export function changeOneDigit(text: string): string {
  for (const key of TIME_KEYS) {
    const at = text.indexOf(key)
    if (at < 0) continue
    let end = at + key.length
    if (!/[0-9]/.test(text[end] ?? '')) continue
    while (/[0-9]/.test(text[end + 1] ?? '')) end++
    const changed = text[end] === '9' ? '8' : String(Number(text[end]) + 1)
    return text.slice(0, end) + changed + text.slice(end + 1)
  }
  throw new Error('damage: the record holds no time to change')
}
