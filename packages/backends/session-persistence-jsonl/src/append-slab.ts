/**
 * The buffer one writer frames its appends into (02 §5 "Lines", "Append"): each batch's lines are written straight
 * into a slab, checksum prefix and newline included, and the bytes handed to `write` and the state's revision tail
 * are both views of that slab — no buffer is allocated per append. A slab only ever grows at its end and no byte of
 * it is written twice, so a view, once handed out, never changes; its content is always a contiguous suffix of the
 * file as its last committed state ended.
 */
import type { EncodedRecord } from '@logbook/session-persistence'
import { CURRENT_FRAMING, frameRecords, PREFIX_BYTES, type Framing } from './framing.ts'
import { REVISION_TAIL } from './revision.ts'

/** Bytes of one slab: many small appends share one allocation, and a state's tail keeps at most two alive. */
export const SLAB_BYTES = 64 * 1024

/** A batch framed for `write`, and the last `min(4096, size)` bytes of the file once it is written. */
export interface FramedBatch {
  readonly data: Buffer
  readonly tail: Buffer
}

const HEX = Buffer.from('0123456789abcdef', 'latin1')
const SPACE = 0x20
const NEWLINE = 0x0a

/** One writer's append slab (mutated only under the coordinator's per-id queue, like the rest of the writer). */
export class AppendSlab {
  #slab: Buffer | undefined
  /** Bytes of `#slab` in use: every byte below it belongs to some view already handed out. */
  #end = 0

  /**
   * Frames `records` after a file whose last bytes are `previous` (a state's tail). The result's views stay valid
   * and unchanged forever, also when the write fails and the batch is never committed.
   */
  frame(records: readonly EncodedRecord[], framing: Framing, previous: Buffer): FramedBatch {
    // The cheap bound decides almost always; the exact size only when the bound does not fit.
    const start = this.#startFor(previous, boundOf(records, framing)) ?? this.#startFor(previous, exactSizeOf(records, framing))
    if (start === undefined) return frameAlone(records, framing)
    const slab = this.#slab as Buffer
    const end = writeLines(slab, start, records, framing)
    this.#end = end
    return { data: slab.subarray(start, end), tail: slab.subarray(Math.max(0, end - REVISION_TAIL), end) }
  }

  /**
   * Where `size` bytes following `previous` go: after the used bytes when `previous` ends there and they fit, else at
   * the start of a fresh slab after a copy of `previous`; `undefined` when not even a fresh slab has room.
   */
  #startFor(previous: Buffer, size: number): number | undefined {
    const slab = this.#slab
    if (slab !== undefined && this.#continues(slab, previous) && this.#end + size <= slab.length) return this.#end
    const keep = Math.min(previous.length, REVISION_TAIL)
    if (keep + size > SLAB_BYTES) return undefined
    const fresh = Buffer.allocUnsafeSlow(SLAB_BYTES)
    previous.copy(fresh, 0, previous.length - keep)
    this.#slab = fresh
    this.#end = keep
    return keep
  }

  /** True when `previous` ends exactly where the slab's used bytes end: the next batch follows it in the slab. */
  #continues(slab: Buffer, previous: Buffer): boolean {
    return previous.buffer === slab.buffer && previous.byteOffset + previous.length === slab.byteOffset + this.#end
  }
}

/** Bytes a line adds to its record text: the checksum prefix (framing 2) and the newline. */
const lineOverhead = (framing: Framing): number => (framing === CURRENT_FRAMING ? PREFIX_BYTES + 1 : 1)

/** At least the framed size of `records`: a UTF-16 code unit takes at most 3 UTF-8 bytes. */
function boundOf(records: readonly EncodedRecord[], framing: Framing): number {
  const perLine = lineOverhead(framing)
  let bound = 0
  for (let i = 0; i < records.length; i++) bound += (records[i] as EncodedRecord).text.length * 3 + perLine
  return bound
}

/** The exact framed size of `records`. */
function exactSizeOf(records: readonly EncodedRecord[], framing: Framing): number {
  const perLine = lineOverhead(framing)
  let size = 0
  for (let i = 0; i < records.length; i++) size += Buffer.byteLength((records[i] as EncodedRecord).text, 'utf8') + perLine
  return size
}

/** Writes the lines of `records` into `target` from `at` (room checked by the caller); returns the end offset. */
function writeLines(target: Buffer, at: number, records: readonly EncodedRecord[], framing: Framing): number {
  let pos = at
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as EncodedRecord
    if (framing === CURRENT_FRAMING) {
      const crc = record.crc >>> 0
      for (let d = 0; d < 8; d++) target[pos + d] = HEX[(crc >>> (28 - 4 * d)) & 15] as number
      target[pos + 8] = SPACE
      pos += PREFIX_BYTES
    }
    pos += target.write(record.text, pos)
    target[pos++] = NEWLINE
  }
  return pos
}

/**
 * A batch too large for a slab (more than 60 KiB, so its own last 4096 bytes are the tail): its own buffer, and a
 * copied tail, so the state does not keep the batch alive.
 */
function frameAlone(records: readonly EncodedRecord[], framing: Framing): FramedBatch {
  const data = Buffer.from(frameRecords(records, framing), 'utf8')
  return { data, tail: Buffer.from(data.subarray(data.length - REVISION_TAIL)) }
}
