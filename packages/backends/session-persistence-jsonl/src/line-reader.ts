/**
 * Streams a file in 64 KiB chunks and hands out its `\n`-terminated lines (split with `Buffer.indexOf`, 02 §5
 * "Reading"), each with its byte offset; bytes after the last newline come out once, marked incomplete. Chunks are
 * read synchronously (the lines are parsed synchronously anyway, and an async round trip per chunk costs more than
 * the read), yielding to the event loop after every `YIELD_EVERY` chunks.
 */
import { readSync } from 'node:fs'
import { setImmediate as yieldToLoop } from 'node:timers/promises'

/** Chunk size of every streamed read. */
export const READ_CHUNK = 64 * 1024
/** Chunks read between two yields to the event loop (1 MiB). */
const YIELD_EVERY = 16

/**
 * Receives one line: the bytes `buffer[start, end)` without the newline, its byte offset in the file, and whether
 * a newline terminated it. The buffer is reused after the call returns: consume it synchronously. Returning
 * `false` stops the read.
 */
export type LineSink = (buffer: Buffer, start: number, end: number, offset: number, complete: boolean) => boolean | void

/**
 * Reads `fd` from byte `from` up to byte `end` (exclusive; default: its end), calling `sink` per line; returns
 * the number of bytes read past `from`, or stops early when the sink returns `false`.
 */
export async function readLines(fd: number, sink: LineSink, from = 0, end = Infinity): Promise<number> {
  const chunk = Buffer.allocUnsafe(READ_CHUNK)
  let carry: Buffer[] = []
  let carryLength = 0
  let carryOffset = from
  let position = from
  for (let chunks = 1; ; chunks++) {
    if (chunks % YIELD_EVERY === 0) await yieldToLoop()
    const want = Math.min(READ_CHUNK, end - position)
    if (want <= 0) break
    const bytesRead = readSync(fd, chunk, 0, want, position)
    if (bytesRead === 0) break
    const chunkOffset = position
    position += bytesRead
    let lineStart = 0
    for (;;) {
      const nl = chunk.indexOf(10, lineStart)
      if (nl === -1 || nl >= bytesRead) break
      if (carryLength > 0) {
        carry.push(chunk.subarray(0, nl))
        const line = Buffer.concat(carry, carryLength + nl)
        carry = []
        carryLength = 0
        if (sink(line, 0, line.length, carryOffset, true) === false) return position - from
      } else if (sink(chunk, lineStart, nl, chunkOffset + lineStart, true) === false) {
        return position - from
      }
      lineStart = nl + 1
    }
    if (lineStart < bytesRead) {
      if (carryLength === 0) carryOffset = chunkOffset + lineStart
      // Copy: `chunk` is overwritten by the next read.
      carry.push(Buffer.from(chunk.subarray(lineStart, bytesRead)))
      carryLength += bytesRead - lineStart
    }
  }
  if (carryLength > 0) {
    const fragment = Buffer.concat(carry, carryLength)
    sink(fragment, 0, fragment.length, carryOffset, false)
  }
  return position - from
}
