/**
 * Per-record checksums: every stored record (header row, event row, checkpoint row) carries the CRC-32 of the UTF-8
 * bytes of its stored text, as an unsigned 32-bit integer in a `bigint` column. One module, so the rule can move to
 * the shared codec unchanged.
 */
import { crc32 } from 'node:zlib'

/** CRC-32 (zlib's, unsigned) of the UTF-8 bytes of `text`. */
export function recordCrc(text: string): number {
  return crc32(text)
}

/** True iff `stored` is the checksum of `text` (a missing or non-integer `stored` never matches). */
export function crcMatches(text: string, stored: unknown): boolean {
  return typeof stored === 'number' && stored === crc32(text)
}
