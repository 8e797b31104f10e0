/**
 * Reads one session file as it stands at open time: the header line, every further line handed to a decoder with
 * its byte offset, the size and the bytes a revision hashes. The snapshot is bounded by the size seen at open, so
 * a concurrent writer's later bytes are not half-read.
 */
import { closeSync, fstatSync } from 'node:fs'
import { openForReadIfExists } from './io.ts'
import { readLines } from './line-reader.ts'
import { readTail } from './revision.ts'

/** A session file read at one instant. */
export interface RawLog<R> {
  readonly size: number
  /** The header line's text; undefined for an empty file. */
  readonly headerText: string | undefined
  /** False when the file holds no newline at all. */
  readonly headerComplete: boolean
  /** What the decoder made of each line after the header, in physical order. */
  readonly records: R[]
  /** The last min(4096, size) bytes, for the revision. */
  readonly tail: Buffer
}

/**
 * Decodes one record line: `text` is the line without its newline, `complete` whether it had one (false only for
 * bytes after the last newline), `offset` its first byte (the cut marker), `index` its position after the header.
 * Called in physical order.
 */
export type RecordDecoder<R> = (text: string, complete: boolean, offset: number, index: number) => R

/** Reads the file at `path`; `undefined` when it does not exist. */
export async function readLog<R>(path: string, decode: RecordDecoder<R>): Promise<RawLog<R> | undefined> {
  const fd = openForReadIfExists(path)
  if (fd === undefined) return undefined
  try {
    const { size } = fstatSync(fd)
    let headerText: string | undefined
    let headerComplete = false
    const records: R[] = []
    await readLines(
      fd,
      (buffer, start, end, offset, complete) => {
        const text = buffer.toString('utf8', start, end)
        if (headerText === undefined) {
          headerText = text
          headerComplete = complete
          return
        }
        records.push(decode(text, complete, offset, records.length))
      },
      0,
      size,
    )
    const tail = readTail(fd, size)
    return { size, headerText, headerComplete, records, tail }
  } finally {
    closeSync(fd)
  }
}
