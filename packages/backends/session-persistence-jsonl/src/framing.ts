/**
 * The line framing of a session file (02 §5 "Lines"). Framing 2 (the current store format) prefixes every line, the
 * header included, with the record's checksum: 8 lowercase hex digits and one space, then the record text, then
 * `\n` — `<crc> <json>\n`. The prefix sits outside the JSON, so a reader checks the exact stored bytes before it
 * parses them, and a writer adds 9 bytes per record. Framing 1 (older files) has plain JSON lines and no checksums;
 * a file's header line says which framing its records use.
 */
import { checksumProblem, hex8, recordChecksum, type EncodedRecord, type RecordResult } from '@logbook/session-persistence'

/** The framing this build writes: checksum-prefixed lines. */
export const CURRENT_FRAMING = 2
/** The framing of files written before checksums: plain JSON lines. */
export const LEGACY_FRAMING = 1
/** A framing this build reads. */
export type Framing = typeof LEGACY_FRAMING | typeof CURRENT_FRAMING

/** Bytes before the record text in a framed line: 8 hex digits and a space. */
export const PREFIX_BYTES = 9

const SPACE = 0x20

/** Byte → its value as a lowercase hex digit, or -1 (a table: every line of a resume reads eight). */
const HEX_DIGIT = new Int8Array(256).fill(-1)
for (let i = 0; i < 10; i++) HEX_DIGIT[0x30 + i] = i
for (let i = 0; i < 6; i++) HEX_DIGIT[0x61 + i] = 10 + i

/** The framing of a file whose header line starts with `byte`: `{` is a plain JSON line (framing 1). */
export function framingOfFirstByte(byte: number | undefined): Framing {
  return byte === 0x7b ? LEGACY_FRAMING : CURRENT_FRAMING
}

/** The line of a record `text` with checksum `crc` in `framing`, newline included. */
export function frameLine(text: string, crc: number, framing: Framing): string {
  return framing === CURRENT_FRAMING ? `${hex8(crc)} ${text}\n` : `${text}\n`
}

/** The text of `records`, one line each in `framing`. */
export function frameRecords(records: readonly EncodedRecord[], framing: Framing): string {
  let text = ''
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as EncodedRecord
    text += frameLine(record.text, record.crc, framing)
  }
  return text
}

/** The stored checksum of the framed line in `bytes[start, end)`, or -1 when it has no checksum prefix. */
function storedChecksum(bytes: Uint8Array, start: number, end: number): number {
  if (end - start < PREFIX_BYTES || bytes[start + 8] !== SPACE) return -1
  let value = 0
  for (let i = start; i < start + 8; i++) {
    const digit = HEX_DIGIT[bytes[i] as number] as number
    if (digit < 0) return -1
    value = value * 16 + digit
  }
  return value
}

const NO_PREFIX: RecordResult = Object.freeze({ ok: false, reason: 'record has no checksum prefix' })

/**
 * Check the framed line `bytes[start, end)` (no newline): its prefix, then the checksum of the bytes after it.
 * Returns the defect, or `undefined` when the record text (from `start + PREFIX_BYTES`) matches its checksum.
 */
export function framingDefect(bytes: Uint8Array, start: number, end: number): RecordResult | undefined {
  const stored = storedChecksum(bytes, start, end)
  if (stored < 0) return NO_PREFIX
  return checksumProblem(stored, recordChecksum(bytes.subarray(start + PREFIX_BYTES, end)))
}

/**
 * `framingDefect` for a line already decoded to text: the record text, or why the line is a defect. The checksum is
 * taken of the text's UTF-8 form directly (the prefix is ASCII), so the line is not encoded back to bytes first.
 */
export function unframeText(line: string): { readonly text: string } | { readonly problem: string } {
  let stored = line.length < PREFIX_BYTES || line.charCodeAt(8) !== SPACE ? -1 : 0
  for (let i = 0; i < 8 && stored >= 0; i++) {
    const code = line.charCodeAt(i)
    const digit = code < 256 ? HEX_DIGIT[code] as number : -1
    stored = digit < 0 ? -1 : stored * 16 + digit
  }
  if (stored < 0) return { problem: 'record has no checksum prefix' }
  const text = line.slice(PREFIX_BYTES)
  const defect = checksumProblem(stored, recordChecksum(text))
  if (defect === undefined) return { text }
  return { problem: defect.ok ? 'unreadable record' : defect.reason }
}
