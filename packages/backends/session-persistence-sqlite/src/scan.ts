/**
 * Reading and cutting one session's rows (02 §6 "Defects", "Cut transaction", "Reads"). A full scan reads every
 * row in seq order; a seek reads rows with `seq >= s − 1023` (a packed row holds ≤ 1024 members) and skips those
 * ending before `s`, so it never walks the whole log.
 */

import {
  cutUpdatedAt, EventRowRecords, headerColumnProblem, parseHeaderColumn, ROW_SEEK_WINDOW, type EventRowColumns,
  type PhysicalScan, type RevisionRowCounts, type ScanRecord,
} from '@logbook/session-persistence'
import type { Statement } from './connection.ts'
import { LOGBOOK_SCHEMA_VERSION } from './identity.ts'
import { headerChecksumProblem, revisionToken, type SessionRow } from './session-row.ts'
import type { StatementName } from './sql.ts'

type Stmt = (name: StatementName) => Statement

/**
 * Runs `fn` with `statement` in better-sqlite3's raw mode (rows as arrays: no object, no property per column), then
 * turns it back (the statement is cached and shared with readers of named columns).
 */
function asArrays<T>(statement: Statement, fn: (statement: Statement) => T): T {
  statement.raw(true)
  try {
    return fn(statement)
  } finally {
    statement.raw(false)
  }
}

/** Event rows a scan reads per statement run (02 §6 "Reads"). */
export const SCAN_PAGE_ROWS = 256

/** What a scan needs from its backend: identity, schema version, location, the row-count cache and the rows-read counter. */
export interface ScanState {
  readonly storeId: string
  /** The store's schema version: below the current one, the scan says `migrate` has work (`outdatedLayout`). */
  readonly schemaVersion: number
  readonly location: string | undefined
  readonly rowCounts: RevisionRowCounts
  readonly countRead: (rows: number) => void
}

/**
 * One record per row of session `id` from seq `from` on (rows ending before `fromSeq` skipped), plus the two row-store
 * defects. The rows are read `SCAN_PAGE_ROWS` at a time with one `all` each (a step per row costs more), so a page's
 * bodies are parsed and dropped while young instead of all held at once; each page starts after the last seq of the
 * one before (seq is the primary key), so the pages, inside the caller's read transaction, hold exactly the rows one
 * statement would have returned.
 */
function pagedRecords(statement: Statement, id: string, from: number, nextSeq: number, fromSeq: number): {
  records: ScanRecord<number>[]
  startSeq: number
  rowCount: number
} {
  const walk = new EventRowRecords(nextSeq, fromSeq)
  let rowCount = 0
  for (let pageFrom = from; ;) {
    const page = statement.all({ sessionId: id, fromSeq: pageFrom, limit: SCAN_PAGE_ROWS }) as EventRowColumns[]
    rowCount += page.length
    walk.add(page)
    if (page.length < SCAN_PAGE_ROWS) break
    pageFrom = page[page.length - 1]![0] + 1
  }
  const { records, startSeq } = walk.finish()
  return { records, startSeq, rowCount }
}

/**
 * Scan session `id` inside a read transaction: raw header, header/column agreement, identity, revision and one
 * record per row; `undefined` when no session row exists. A seek reports `physicalLength` −1 unless the row count of
 * this revision is cached (the coordinator uses it only from commits).
 */
export function scanSession(stmt: Stmt, id: string, fromSeq: number | undefined, state: ScanState): PhysicalScan<number> | undefined {
  const session = stmt('select-session').get({ id }) as SessionRow | undefined
  if (session === undefined) return undefined
  const header = parseHeaderColumn(session)
  const headerProblem = header === undefined ? undefined : headerColumnProblem(session, header)
  const headerDefect = headerChecksumProblem(session)
  const revision = revisionToken(state.storeId, session.incarnation, session.revision)
  const seek = fromSeq !== undefined && fromSeq > 0
  const from = seek ? Math.max(0, fromSeq - ROW_SEEK_WINDOW) : 0
  const { records, startSeq, rowCount } = asArrays(stmt('select-events-page'), statement =>
    pagedRecords(statement, id, from, session.next_seq, seek ? fromSeq : 0))
  state.countRead(rowCount)
  const physicalLength = state.rowCounts.scanned(id, revision, rowCount, seek)
  return {
    header,
    ...(headerProblem === undefined ? {} : { headerProblem }),
    ...(headerDefect === undefined ? {} : { headerDefect }),
    checksums: session.crc !== undefined,
    ...(state.schemaVersion < LOGBOOK_SCHEMA_VERSION ? { outdatedLayout: true } : {}),
    storeId: state.storeId,
    incarnation: session.incarnation,
    revision,
    physicalLength,
    startSeq,
    records,
    ...(state.location === undefined ? {} : { location: state.location }),
  }
}

/**
 * Inside the cut transaction: the marker must start a record — a row ending right before it (or the log's start) and
 * none straddling it — then every row from it and a checkpoint at or beyond it are deleted. Staleness of the scan is
 * the caller's revision check. Returns the new `updated_at` (time of the new last event, `created_at` with none).
 * @throws SessionPersistenceError `SESSION_CONFLICT` "repair is stale"; nothing is deleted.
 */
export function cutRows(stmt: Stmt, session: SessionRow, marker: number): number {
  const id = session.id
  const before = marker > 0 && Number.isSafeInteger(marker)
    ? asArrays(stmt('select-event-before'), statement => statement.get({ sessionId: id, beforeSeq: marker }) as EventRowColumns | undefined)
    : undefined
  const updatedAt = cutUpdatedAt(id, marker, session.next_seq, session.created_at, before)
  stmt('delete-events-from').run({ sessionId: id, fromSeq: marker })
  stmt('delete-checkpoint-from').run({ sessionId: id, fromSeq: marker })
  return updatedAt
}
