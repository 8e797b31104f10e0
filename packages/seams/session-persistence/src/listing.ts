/**
 * Listing (spec 02 §1.3): `list(query)` validates the query and decodes its cursor, asks the backend for one page and
 * issues the next cursor. Order: `updatedAt` descending, then id by UTF-8 bytes ascending; a cursor encodes the last
 * item's `(updatedAt, id)` and a hash of the filters. Backends that sort in memory (memory, JSONL) use
 * `compareSummaries` and `matchesQuery`.
 */
import { createHash } from 'node:crypto'
import type { BackendListQuery } from './backend.ts'
import { invalidArgument } from './errors.ts'
import type { Host } from './host.ts'
import { begin, isPlainObject, throwIfAborted } from './prelude.ts'
import type { ListPage, ListQuery, OperationOptions, SessionSummary } from './types.ts'
import { describe } from './util.ts'

/** Compare two ids by their UTF-8 bytes (valid ids are ASCII, so code-unit order is byte order). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Listing order: `updatedAt` descending, then id ascending by UTF-8 bytes. */
export function compareSummaries(
  a: { readonly updatedAt: number; readonly id: string },
  b: { readonly updatedAt: number; readonly id: string },
): number {
  return b.updatedAt - a.updatedAt || compareIds(a.id, b.id)
}

/** True iff `summary` passes the query's filters and lies strictly after its keyset position. */
export function matchesQuery(summary: SessionSummary, query: BackendListQuery): boolean {
  const { header } = summary
  if (query.cwd !== undefined && header.cwd !== query.cwd) return false
  if (query.parentSession === null && header.parentSession !== undefined) return false
  if (typeof query.parentSession === 'string' && header.parentSession !== query.parentSession) return false
  if (query.updatedAfter !== undefined && !(summary.updatedAt > query.updatedAfter)) return false
  if (query.after !== undefined && compareSummaries(summary, query.after) <= 0) return false
  return true
}

/** The page of `query` from every stored summary (any order): filter, sort, cut at `limit`. */
export function pageOf(all: Iterable<SessionSummary>, query: BackendListQuery): { items: SessionSummary[]; hasMore: boolean } {
  const matching: SessionSummary[] = []
  for (const summary of all) if (matchesQuery(summary, query)) matching.push(summary)
  matching.sort(compareSummaries)
  return { items: matching.slice(0, query.limit), hasMore: matching.length > query.limit }
}

/** Hash of the filters a cursor is bound to (limit excluded: page size may change between pages). */
function filterHash(query: Pick<ListQuery, 'cwd' | 'parentSession' | 'updatedAfter'>): string {
  const key = JSON.stringify([
    query.cwd === undefined ? 0 : [query.cwd],
    query.parentSession === undefined ? 0 : [query.parentSession],
    query.updatedAfter === undefined ? 0 : [query.updatedAfter],
  ])
  return createHash('sha256').update(key).digest('hex').slice(0, 16)
}

/** The opaque cursor after `last` for the filters hashed as `hash`. */
function encodeCursor(last: { readonly updatedAt: number; readonly id: string }, hash: string): string {
  return Buffer.from(JSON.stringify({ v: 1, u: last.updatedAt, i: last.id, h: hash })).toString('base64url')
}

/** Decode a cursor issued for the same filters. @throws `INVALID_ARGUMENT` when malformed or reused with other filters. */
function decodeCursor(cursor: string, hash: string): { updatedAt: number; id: string } {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw invalidArgument(`malformed list cursor ${JSON.stringify(cursor)}`)
  }
  const v = value as { v?: unknown; u?: unknown; i?: unknown; h?: unknown } | null
  if (typeof v !== 'object' || v === null || v.v !== 1 || !Number.isSafeInteger(v.u) || typeof v.i !== 'string'
    || typeof v.h !== 'string' || Buffer.from(cursor, 'base64url').toString('base64url') !== cursor) {
    throw invalidArgument(`malformed list cursor ${JSON.stringify(cursor)}`)
  }
  if (v.h !== hash) throw invalidArgument('list cursor was issued for other filters')
  return { updatedAt: v.u as number, id: v.i }
}

const LIST_KEYS: ReadonlySet<string> = new Set(['cwd', 'parentSession', 'updatedAfter', 'limit', 'cursor'])

/** Validate a `ListQuery` and decode its cursor. @throws `INVALID_ARGUMENT`. */
function listQuery(query: ListQuery | undefined): { backend: BackendListQuery; hash: string; first: boolean } {
  const q: Record<string, unknown> = query === undefined ? {} : (query as unknown as Record<string, unknown>)
  if (!isPlainObject(q)) throw invalidArgument('list query must be an object')
  for (const key of Object.keys(q)) {
    if (!LIST_KEYS.has(key) && q[key] !== undefined) throw invalidArgument(`unknown list query key "${key}"`)
  }
  const { cwd, parentSession, updatedAfter, limit = 50, cursor } = q
  if (cwd !== undefined && typeof cwd !== 'string') throw invalidArgument('list query cwd must be a string')
  if (parentSession !== undefined && parentSession !== null && typeof parentSession !== 'string') {
    throw invalidArgument('list query parentSession must be a string or null')
  }
  if (updatedAfter !== undefined && !Number.isSafeInteger(updatedAfter)) {
    throw invalidArgument('list query updatedAfter must be a safe integer')
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw invalidArgument(`list limit must be an integer from 1 to 500, got ${describe(limit)}`)
  }
  if (cursor !== undefined && typeof cursor !== 'string') throw invalidArgument('list cursor must be a string')
  const filters = {
    ...(cwd === undefined ? {} : { cwd }),
    ...(parentSession === undefined ? {} : { parentSession: parentSession as string | null }),
    ...(updatedAfter === undefined ? {} : { updatedAfter: updatedAfter as number }),
  }
  const hash = filterHash(filters)
  const after = cursor === undefined ? undefined : decodeCursor(cursor, hash)
  return { backend: { ...filters, limit, ...(after === undefined ? {} : { after }) }, hash, first: after === undefined }
}

/** `list(query)`: one page, newest first; problems on the first page only. */
export async function listSessions(host: Host, query: ListQuery | undefined, opts?: OperationOptions): Promise<ListPage> {
  const signal = begin(host, opts)
  const { backend, hash, first } = listQuery(query)
  await host.ready
  throwIfAborted(signal)
  const result = await host.backend.list(backend, signal)
  throwIfAborted(signal)
  const items = [...result.items]
  const last = items.at(-1)
  return {
    items,
    nextCursor: result.hasMore && last !== undefined ? encodeCursor(last, hash) : null,
    problems: first ? [...result.problems] : [],
  }
}
