/**
 * Listing (02 §6 "List"): one query over `logbook_sessions` with the filters, `ORDER BY updated_at DESC, id ASC`
 * (SQLite's BINARY collation compares UTF-8 bytes). The first page reads every matching row, so it reports every
 * problem; a later page runs the keyset statement, a range seek on `logbook_sessions_by_update` that reads only the
 * rows it returns (plus any bad rows it skips), so a full walk costs one pass over the rows, not one per page.
 */

import { assertSessionHeader, deepFreeze, isSupportedSessionFormat, SESSION_FORMAT_VERSION, SessionId, type SessionHeader } from '@logbook/session'
import {
  formatVersionError,
  headerColumnProblem,
  ListingMemo,
  parseHeaderColumn,
  SessionPersistenceCorruptionError,
  type BackendListQuery,
  type BackendListResult,
  type ListProblem,
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
  const problem = headerColumnProblem(row, header)
  try {
    if (problem !== undefined) throw new Error(problem)
    assertSessionHeader(header, SessionId(row.id))
  } catch (error) {
    const detail = (error as Error).message
    return new SessionPersistenceCorruptionError(`session "${row.id}": ${detail}`, { sessionId: row.id, ...where, detail, cause: error })
  }
  return header as SessionHeader
}

/** The stored values a row's check depends on: equal values give the same outcome. */
const checkInputs = (row: SessionRow) => [row.header, row.crc, row.version, row.created_at, row.cwd, row.parent_session] as const

/**
 * The summary of a row whose header is checked. The header is frozen whole by the first summary that holds it (rows
 * past the first page are checked, never frozen); later listings share the frozen object through the memo.
 */
function summaryOf(row: SessionRow, header: SessionHeader, storeId: string, location: string | undefined): SessionSummary {
  return {
    id: row.id,
    header: Object.isFrozen(header) ? header : deepFreeze(header),
    eventCount: row.next_seq,
    updatedAt: row.updated_at,
    revision: revisionToken(storeId, row.incarnation, row.revision),
    ...(location === undefined ? {} : { location }),
  }
}

/**
 * One page of sessions after `query.after`: at most `query.limit` summaries, whether more exist, and (first page
 * only, i.e. without `after`) every matching row that cannot be summarised. Headers checked by an earlier listing
 * come from `memo` while their stored values are unchanged. Call inside a read transaction.
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
  const rows = stmt(firstPage ? 'list-sessions' : 'list-sessions-after').iterate(listParams(query)) as IterableIterator<SessionRow>
  for (const row of rows) {
    // A header checked by an earlier listing is reused while the stored values it came from are unchanged.
    const header = memo.recall(row.id, checkInputs(row), () => checkRow(row, location))
    if (header instanceof Error) {
      if (firstPage) problems.push({ location: location ?? ':memory:', sessionId: row.id, error: header })
      continue
    }
    if (items.length === query.limit) {
      hasMore = true
      if (!firstPage) break
      continue
    }
    items.push(summaryOf(row, header, storeId, location))
  }
  return { items, hasMore, problems }
}
