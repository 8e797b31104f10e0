/**
 * `scan` (02 §1.4, §5 "Reading"): one pass over a session file as it stands at open time — bounded by the size seen
 * then, so a concurrent writer's later bytes are not half-read — that parses each line as it is read and reports the
 * raw header, identity, revision and every record with its byte offset. Classification (§4.1) is the coordinator's.
 */
import { closeSync, fstatSync } from 'node:fs'
import { decodeRecordText, type PhysicalScan, type RecordResult, type ScanRecord } from '@logbook/session-persistence'
import { decodeHeaderLine } from './header-line.ts'
import { openForReadIfExists } from './io.ts'
import { readLines } from './line-reader.ts'
import { readTail, revisionOf } from './revision.ts'
import type { JsonlStore, SessionLocation } from './store.ts'

/** A session file read at one instant. */
interface RawLog<R> {
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
type RecordDecoder<R> = (text: string, complete: boolean, offset: number, index: number) => R

/** Reads the file at `path`; `undefined` when it does not exist. */
async function readLog<R>(path: string, decode: RecordDecoder<R>): Promise<RawLog<R> | undefined> {
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

const INCOMPLETE: RecordResult = Object.freeze({
  ok: false,
  reason: 'incomplete record (no terminating newline)',
  turnEndEvidence: false,
})

/**
 * A fragment after the last newline is decoded too (it is never valid: `complete` is false), so a record torn only
 * of its newline reports the events it drops.
 */
function decodeLine(text: string, complete: boolean, offset: number, index: number): ScanRecord<number> {
  let result = decodeRecordText(text)
  if (!complete && !result.ok) result = INCOMPLETE
  return { marker: offset, complete, result, line: index + 2 }
}

/** Reads the stored file at `location` into a `PhysicalScan` (markers are byte offsets). */
export async function scanFile(store: JsonlStore, location: SessionLocation): Promise<PhysicalScan<number> | undefined> {
  const storeId = await store.storeId()
  const log = await readLog(location.file, decodeLine)
  if (log === undefined) return undefined
  const head = decodeHeaderLine(log.headerText, log.headerComplete, location)
  return {
    header: head.header,
    ...(head.problem === undefined ? {} : { headerProblem: head.problem }),
    storeId,
    incarnation: head.incarnation,
    revision: revisionOf(storeId, head.incarnation, log.size, log.tail),
    physicalLength: log.size,
    startSeq: 0,
    records: log.records,
    location: location.file,
  }
}
