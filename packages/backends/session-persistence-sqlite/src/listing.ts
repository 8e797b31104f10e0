/**
 * Listing (02 §6 "List"): one query over `logbook_sessions` with the filters, `ORDER BY updated_at DESC, id ASC`
 * (SQLite's BINARY collation compares UTF-8 bytes). The first page reads every matching row, so it reports every
 * problem; a later page runs the keyset statement, a range seek on `logbook_sessions_by_update` that reads only the
 * rows it returns (plus any bad rows it skips), so a full walk costs one pass over the rows, not one per page.
 */

import { deepFreeze, isSupportedSessionFormat, parsedHeaderError, SESSION_FORMAT_VERSION, type SessionHeader } from '@logbook/session'
import {
  formatVersionError,
  headerColumnProblem,
  ListingMemo,
  parseHeaderColumn,
  SessionPersistenceCorruptionError,
  type BackendListQuery,
  type BackendListResult,
  type ListProblem,
  type MemoInputs,
  type SessionSummary,
} from '@logbook/session-persistence'
import type { Statement } from './connection.ts'
import { headerChecksumProblem, revisionToken, type SessionRow } from './session-row.ts'

/**
 * The parameters `list-sessions.sql` (first page) or `list-sessions-after.sql` (keyset) binds for a query (`limit`
 * −1: no limit; the loop stops reading once the page is full).
 */
function listParams(query: BackendListQuery): Record<string, string | number | null> {
  const parentMode = query.parentSession === undefined ? 0 : query.parentSession === null ? 2 : 1
  return {
    cwd: query.cwd ?? null,
    parentMode,
    parentSession: typeof query.parentSession === 'string' ? query.parentSession : null,
    updatedAfter: query.updatedAfter ?? null,
    afterUpdatedAt: query.after?.updatedAt ?? null,
    afterId: query.after?.id ?? null,
    limit: -1,
  }
}

/** The row's parsed header when it can be summarised, or the error that prevents it (format, shape, columns). */
function checkRow(row: SessionRow, location: string | undefined): SessionHeader | Error {
  const where = location === undefined ? {} : { location }
  const defect = headerChecksumProblem(row)
  if (defect !== undefined) {
    return new SessionPersistenceCorruptionError(`session "${row.id}": ${defect}`, { sessionId: row.id, ...where, detail: defect })
  }
  const header = parseHeaderColumn(row)
  if (header === undefined) {
    return new SessionPersistenceCorruptionError(`session "${row.id}": stored header is not valid JSON`, {
      sessionId: row.id,
      ...where,
      detail: 'header is not valid JSON',
    })
  }
  const version = (header as { version?: unknown } | null)?.version
  if (typeof version === 'number' && !isSupportedSessionFormat(version)) {
    return formatVersionError(row.id, version, SESSION_FORMAT_VERSION, location)
  }
  // A parse result is checked in place (no copy, no throw); frozen only when a summary first holds it.
  const problem = headerColumnProblem(row, header)
  const error = problem !== undefined ? new Error(problem) : parsedHeaderError(header, row.id)
  if (error !== undefined) {
    const detail = error.message
    return new SessionPersistenceCorruptionError(`session "${row.id}": ${detail}`, { sessionId: row.id, ...where, detail, cause: error })
  }
  return header as SessionHeader
}

/** Where a listing statement's raw rows hold each column (`crc` −1: a schema-1 statement has none). */
interface Columns {
  readonly id: number
  readonly version: number
  readonly created_at: number
  readonly cwd: number
  readonly parent_session: number
  readonly header: number
  readonly incarnation: number
  readonly next_seq: number
  readonly updated_at: number
  readonly revision: number
  readonly crc: number
}

const columnIndexes = new WeakMap<Statement, Columns>()

/** The column positions of `statement`'s rows, read once per prepared statement. */
function columnsOf(statement: Statement): Columns {
  let columns = columnIndexes.get(statement)
  if (columns === undefined) {
    const names = statement.columns().map(c => c.name)
    const at = (name: string): number => names.indexOf(name)
    columns = {
      id: at('id'), version: at('version'), created_at: at('created_at'), cwd: at('cwd'), parent_session: at('parent_session'),
      header: at('header'), incarnation: at('incarnation'), next_seq: at('next_seq'), updated_at: at('updated_at'),
      revision: at('revision'), crc: at('crc'),
    }
    columnIndexes.set(statement, columns)
  }
  return columns
}

/** The `SessionRow` a raw row stands for (built only for a row whose header must be checked). */
function rowOf(v: readonly unknown[], c: Columns): SessionRow {
  const row = {
    id: v[c.id], version: v[c.version], created_at: v[c.created_at], cwd: v[c.cwd], parent_session: v[c.parent_session],
    header: v[c.header], incarnation: v[c.incarnation], next_seq: v[c.next_seq], updated_at: v[c.updated_at], revision: v[c.revision],
  }
  return (c.crc < 0 ? row : { ...row, crc: v[c.crc] }) as SessionRow
}

/** The stored values a row's check depends on (header, crc, version, created_at, cwd, parent_session). */
const checkInputs = (v: readonly unknown[], c: Columns): MemoInputs =>
  [v[c.header], c.crc < 0 ? undefined : v[c.crc], v[c.version], v[c.created_at], v[c.cwd], v[c.parent_session]] as MemoInputs

/**
 * The summary of a row whose header is checked. The header is frozen whole by the first summary that holds it (rows
 * past the first page are checked, never frozen); later listings share the frozen object through the memo.
 */
function summaryOf(v: readonly unknown[], c: Columns, header: SessionHeader, storeId: string, location: string | undefined): SessionSummary {
  return {
    id: v[c.id] as string,
    header: Object.isFrozen(header) ? header : deepFreeze(header),
    eventCount: v[c.next_seq] as number,
    updatedAt: v[c.updated_at] as number,
    revision: revisionToken(storeId, v[c.incarnation] as string, v[c.revision] as number),
    ...(location === undefined ? {} : { location }),
  }
}

/**
 * One page of sessions after `query.after`: at most `query.limit` summaries, whether more exist, and (first page
 * only, i.e. without `after`) every matching row that cannot be summarised. Headers checked by an earlier listing
 * come from `memo` while their stored values are unchanged. Rows are read raw (arrays): a first page reads every
 * row, and the driver's keyed row objects cost more than the listing's own work on a memo hit. Call inside a read
 * transaction.
 */
export function listSessions(
  stmt: (name: 'list-sessions' | 'list-sessions-after') => Statement,
  query: BackendListQuery,
  storeId: string,
  location: string | undefined,
  memo: ListingMemo<SessionHeader>,
): BackendListResult {
  const items: SessionSummary[] = []
  const problems: ListProblem[] = []
  const firstPage = query.after === undefined
  let hasMore = false
  if (firstPage) memo.beginPass()
  // Only the listing runs these statements, so they stay in raw mode (the scan's shared ones switch back, scan.ts).
  const statement = stmt(firstPage ? 'list-sessions' : 'list-sessions-after')
  const c = columnsOf(statement)
  for (const v of statement.raw(true).iterate(listParams(query)) as IterableIterator<unknown[]>) {
    const id = v[c.id] as string
    // A header checked by an earlier listing is reused while the stored values it came from are unchanged.
    const header = memo.recall(id, checkInputs(v, c), () => checkRow(rowOf(v, c), location))
    if (header instanceof Error) {
      if (firstPage) problems.push({ location: location ?? ':memory:', sessionId: id, error: header })
      continue
    }
    if (items.length === query.limit) {
      hasMore = true
      if (!firstPage) break
      continue
    }
    items.push(summaryOf(v, c, header, storeId, location))
  }
  return { items, hasMore, problems }
}
