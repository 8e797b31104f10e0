/**
 * Listing (02 §6 "List"): one query over `logbook_sessions` with the filters, `ORDER BY updated_at DESC, id ASC`
 * (SQLite's BINARY collation compares UTF-8 bytes) and the keyset condition. Rows that cannot be summarised are
 * reported as problems on the first page and skipped on later ones.
 */

import { assertSessionHeader, deepFreeze, isSupportedSessionFormat, SESSION_FORMAT_VERSION, SessionId, type SessionHeader } from '@logbook/session'
import {
  formatVersionError,
  headerColumnProblem,
  parseHeaderColumn,
  SessionPersistenceCorruptionError,
  type BackendListQuery,
  type BackendListResult,
  type ListProblem,
  type SessionSummary,
} from '@logbook/session-persistence'
import type { Statement } from './connection.ts'
import { headerChecksumProblem, revisionToken, type SessionRow } from './session-row.ts'

/** The parameters `list-sessions.sql` binds for a query (`limit` −1: no limit; rows are filtered while read). */
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

/** The summary of a row, or the error that prevents one (format, header shape, column agreement). */
function summarise(row: SessionRow, storeId: string, location: string | undefined): SessionSummary | Error {
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
  return {
    id: row.id,
    header: deepFreeze(header as SessionHeader),
    eventCount: row.next_seq,
    updatedAt: row.updated_at,
    revision: revisionToken(storeId, row.incarnation, row.revision),
    ...where,
  }
}

/**
 * One page of sessions after `query.after`: at most `query.limit` summaries, whether more exist, and (first page
 * only, i.e. without `after`) every matching row that cannot be summarised. Call inside a read transaction.
 */
export function listSessions(
  stmt: (name: 'list-sessions') => Statement,
  query: BackendListQuery,
  storeId: string,
  location: string | undefined,
): BackendListResult {
  const items: SessionSummary[] = []
  const problems: ListProblem[] = []
  const firstPage = query.after === undefined
  let hasMore = false
  for (const row of stmt('list-sessions').iterate(listParams(query)) as IterableIterator<SessionRow>) {
    const summary = summarise(row, storeId, location)
    if (summary instanceof Error) {
      if (firstPage) problems.push({ location: location ?? ':memory:', sessionId: row.id, error: summary })
      continue
    }
    if (items.length === query.limit) {
      hasMore = true
      if (!firstPage) break
      continue
    }
    items.push(summary)
  }
  return { items, hasMore, problems }
}
