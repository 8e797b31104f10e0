/**
 * `scan` (02 §1.4, §5 "Reading"): one pass over a session file that parses each line as it is read and reports
 * the raw header, identity, revision and every record with its byte offset. Classification (§4.1) is the
 * coordinator's.
 */
import { decodeRecordText, type PhysicalScan, type RecordResult, type ScanRecord } from '@logbook/session-persistence'
import { decodeHeaderLine } from './header-line.ts'
import { readLog } from './log-reader.ts'
import { revisionOf } from './revision.ts'
import type { JsonlStore, SessionLocation } from './store.ts'

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
