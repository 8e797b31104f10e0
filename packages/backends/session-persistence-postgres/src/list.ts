/**
 * Listing (02 §6b "List"): a query over `logbook_sessions` with the filters, `ORDER BY updated_at DESC, id ASC` (ids in
 * the `"C"` collation: UTF-8 byte order), each row joined with its last event row. Header and last record are checked
 * (checksum, format version, header shape and columns); a row that fails is a problem on the first page and skipped
 * on later ones. The first page reads every matching row, so it sees every problem; a later page is a keyset range
 * scan of `limit + 1` rows at a time, and headers an earlier listing checked come from the backend's memo while their
 * stored values (and the last record) are unchanged.
 */
import { deepFreeze, isSupportedSessionFormat, parsedHeaderError, SESSION_FORMAT_VERSION, type SessionHeader } from '@logbook/session'
import {
  formatVersionError,
  headerColumnProblem,
  parseHeaderColumn,
  SessionPersistenceCorruptionError,
  type BackendListQuery,
  type BackendListResult,
  type ListingMemo,
  type ListProblem,
  type SessionSummary,
} from '@logbook/session-persistence'
import { checksumMismatch, crcProblem } from './row-checksums.ts'
import { headerChecksumProblem, revisionToken, type SessionRow } from './session-row.ts'
import type { PgStore } from './store.ts'

interface ListRow extends SessionRow {
  readonly tail_last_seq: number | null
  readonly tail_body: string | null
  readonly tail_crc: number | null
}

/** The values a listing statement binds for `query`: the filters, then (later pages) the keyset and `limit`. */
function listValues(query: BackendListQuery, limit: number): unknown[] {
  const parentMode = query.parentSession === undefined ? 0 : query.parentSession === null ? 2 : 1
  const filters = [query.cwd ?? null, parentMode, typeof query.parentSession === 'string' ? query.parentSession : null, query.updatedAfter ?? null]
  return query.after === undefined ? filters : [...filters, query.after.updatedAt, query.after.id, limit]
}

/** The row's parsed header when it can be summarised, or the error that prevents it. */
function checkRow(row: ListRow): SessionHeader | Error {
  const defect = headerChecksumProblem(row)
  if (defect !== undefined) return new SessionPersistenceCorruptionError(`session "${row.id}": ${defect}`, { sessionId: row.id, detail: defect })
  const tailProblem = row.tail_body === null ? undefined : crcProblem(row.tail_body, row.tail_crc)
  if (tailProblem !== undefined) {
    return checksumMismatch(row.id, `the record ending at seq ${String(row.tail_last_seq)}`, tailProblem, row.tail_last_seq ?? undefined)
  }
  const header = parseHeaderColumn(row)
  if (header === undefined) {
    return new SessionPersistenceCorruptionError(`session "${row.id}": stored header is not valid JSON`, { sessionId: row.id, detail: 'header is not valid JSON' })
  }
  const version = (header as { version?: unknown } | null)?.version
  if (typeof version === 'number' && !isSupportedSessionFormat(version)) return formatVersionError(row.id, version, SESSION_FORMAT_VERSION)
  // A parse result is checked in place (no copy, no throw); frozen only when a page first returns it.
  const problem = headerColumnProblem(row, header)
  const error = problem !== undefined ? new Error(problem) : parsedHeaderError(header, row.id)
  if (error !== undefined) {
    const detail = error.message
    return new SessionPersistenceCorruptionError(`session "${row.id}": ${detail}`, { sessionId: row.id, detail, cause: error })
  }
  return header as SessionHeader
}

/** The stored values a row's check depends on: equal values give the same outcome. */
const checkInputs = (row: ListRow) =>
  [row.header, row.crc, row.version, row.created_at, row.cwd, row.parent_session, row.tail_body, row.tail_crc, row.tail_last_seq] as const

/**
 * One page after `query.after`: at most `query.limit` summaries, whether more exist, and (first page) the problems.
 * A later page reads `limit + 1` rows at a time, reading on past rows it must skip.
 */
export async function listSessions(store: PgStore, query: BackendListQuery, storeId: string, memo: ListingMemo<SessionHeader>): Promise<BackendListResult> {
  const firstPage = query.after === undefined
  if (firstPage) memo.beginPass()
  const items: SessionSummary[] = []
  const problems: ListProblem[] = []
  let after = query.after
  for (;;) {
    const batch = query.limit + 1
    const rows = await store.query<ListRow>(
      after === undefined ? store.sql.listSessions : store.sql.listSessionsAfter,
      listValues({ ...query, ...(after === undefined ? {} : { after }) }, batch),
    )
    for (const row of rows) {
      // A header checked by an earlier listing is reused while the stored values it came from are unchanged.
      const header = memo.recall(row.id, checkInputs(row), () => checkRow(row))
      if (header instanceof Error) {
        if (firstPage) problems.push({ location: store.label, sessionId: row.id, error: header })
        continue
      }
      if (items.length === query.limit) {
        if (firstPage) continue
        return { items, hasMore: true, problems }
      }
      const frozen = Object.isFrozen(header) ? header : deepFreeze(header)
      items.push({ id: row.id, header: frozen, eventCount: row.next_seq, updatedAt: row.updated_at, revision: revisionToken(storeId, row.incarnation, row.revision) })
    }
    const last = rows.at(-1)
    if (firstPage || rows.length < batch || last === undefined) {
      return { items, hasMore: firstPage && rows.length - problems.length > items.length, problems }
    }
    after = { updatedAt: last.updated_at, id: last.id }
  }
}
