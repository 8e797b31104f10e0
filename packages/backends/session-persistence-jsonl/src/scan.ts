/**
 * `scan` (02 §1.4, §5 "Reading"): one pass over a session file as it stands at open time — bounded by the size seen
 * then, so a concurrent writer's later bytes are not half-read — that checks each line's checksum (framing 2) and
 * parses it as it is read, and reports the raw header, identity, revision and every record with its byte offset.
 * Classification (§4.1) is the coordinator's.
 */
import { closeSync, fstatSync } from 'node:fs'
import { decodeRecordText, type PhysicalScan, type RecordResult, type ScanRecord } from '@logbook/session-persistence'
import { readHeaderAndTail } from './file-ends.ts'
import { CURRENT_FRAMING, framingDefect, PREFIX_BYTES, type Framing } from './framing.ts'
import { decodeHeaderLine, newerFramingError, type DecodedHeaderLine } from './header-line.ts'
import { openForReadIfExists } from './io.ts'
import { readLines } from './line-reader.ts'
import { readTail, revisionOf } from './revision.ts'
import type { JsonlStore, SessionLocation } from './store.ts'

/** A session file read at one instant. */
interface RawLog {
  readonly size: number
  /** The decoded header line (`decodeHeaderLine` of an empty file when the file holds nothing). */
  readonly head: DecodedHeaderLine
  /** Every line after the header, in physical order. */
  readonly records: ScanRecord<number>[]
  /** The last min(4096, size) bytes, for the revision. */
  readonly tail: Buffer
}

const INCOMPLETE: RecordResult = Object.freeze({ ok: false, reason: 'incomplete record (no terminating newline)' })

/**
 * Decodes the record line `buffer[start, end)` in `framing`: checksum first (framing 2), then the JSON. A fragment
 * after the last newline (`complete` false) is decoded too — it is never valid — so a record torn only of its
 * newline reports the events it drops.
 */
function decodeLine(buffer: Buffer, start: number, end: number, framing: Framing | undefined, complete: boolean): RecordResult {
  let textStart = start
  if (framing === CURRENT_FRAMING) {
    const defect = framingDefect(buffer, start, end)
    if (defect !== undefined) return complete ? defect : INCOMPLETE
    textStart = start + PREFIX_BYTES
  }
  const result = decodeRecordText(buffer.toString('utf8', textStart, end))
  return !complete && !result.ok ? INCOMPLETE : result
}

/** Reads the file at `path`, decoding lines as they come; `undefined` when it does not exist. */
async function readLog(path: string, at: SessionLocation): Promise<RawLog | undefined> {
  const fd = openForReadIfExists(path)
  if (fd === undefined) return undefined
  try {
    const { size } = fstatSync(fd)
    let head: DecodedHeaderLine | undefined
    const records: ScanRecord<number>[] = []
    await readLines(
      fd,
      (buffer, start, end, offset, complete) => {
        if (head === undefined) {
          head = decodeHeaderLine({ text: buffer.toString('utf8', start, end), complete }, at)
          return
        }
        const result = decodeLine(buffer, start, end, head.framing, complete)
        records.push({ marker: offset, complete, result, line: records.length + 2 })
      },
      0,
      size,
    )
    return { size, head: head ?? decodeHeaderLine(undefined, at), records, tail: readTail(fd, size) }
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads the stored file at `location` into a `PhysicalScan` (markers are byte offsets).
 * @throws `SESSION_FORMAT_UNSUPPORTED` when the file's framing is newer than this build reads.
 */
export async function scanFile(store: JsonlStore, location: SessionLocation): Promise<PhysicalScan<number> | undefined> {
  const storeId = await store.storeId()
  const log = await readLog(location.file, location)
  if (log === undefined) return undefined
  const { head } = log
  if (head.newerFraming !== undefined) {
    const id = typeof head.header?.id === 'string' ? head.header.id : location.sessionDir
    throw newerFramingError(id, head.newerFraming, location.file)
  }
  return {
    header: head.header,
    ...(head.problem === undefined ? {} : { headerProblem: head.problem }),
    ...(head.defect === undefined ? {} : { headerDefect: head.defect }),
    checksums: head.framing === CURRENT_FRAMING,
    storeId,
    incarnation: head.incarnation,
    revision: revisionOf(storeId, head.incarnation, log.size, log.tail),
    physicalLength: log.size,
    startSeq: 0,
    records: log.records,
    location: location.file,
  }
}

/**
 * The revision `scanFile` would report for `location` now, from the file's header line and last 4 KiB alone (no
 * record is read); undefined when the file is gone.
 */
export async function revisionAt(store: JsonlStore, location: SessionLocation): Promise<string | undefined> {
  const storeId = await store.storeId()
  const ends = readHeaderAndTail(location.file)
  if (ends === undefined) return undefined
  return revisionOf(storeId, decodeHeaderLine(ends.header, location).incarnation, ends.size, ends.tail)
}
