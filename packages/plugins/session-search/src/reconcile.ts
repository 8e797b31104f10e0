/**
 * The index against the store (spec 04 §3.2): `catchUp` walks the store's listing and indexes the new tail of every
 * session whose stored revision differs from the one the index recorded (sessions another process wrote, imported,
 * forked or repaired), and drops sessions the store no longer holds; `reindex` rebuilds from the stores. Unreadable
 * sessions are logged once per revision; corrupt or newer ones are skipped until they change.
 */
import type { SessionId, SessionStore } from '@logbook/session'
import { isSessionPersistenceError, type SessionSummary } from '@logbook/session-persistence'
import { messageOf } from './errors.ts'
import { viewOf } from './fold.ts'
import { type IndexHost, indexRange, indexStored, inheritedOf } from './indexer.ts'
import type { CatchUpOptions, IndexReport, ReindexOptions } from './types.ts'

/** What the catch-up needs besides the indexing host. */
export interface ReconcileHost extends IndexHost {
  readonly sessions: SessionStore
  /** Stored revisions already reported as unreadable, per session. */
  readonly unreadable: Map<string, string>
}

/** Page size of the listing walk (the largest 02 §1.3 allows). */
const PAGE = 500

/** Every stored session, walking the listing page by page. */
export async function listAll(host: IndexHost, signal?: AbortSignal): Promise<SessionSummary[]> {
  const opts = signal === undefined ? {} : { signal }
  const items: SessionSummary[] = []
  let cursor: string | null = null
  do {
    const page = await host.persistence.list(cursor === null ? { limit: PAGE } : { limit: PAGE, cursor }, opts)
    for (const item of page.items) items.push(item)
    cursor = page.nextCursor
  } while (cursor !== null)
  return items
}

/** True iff `id` is live in this process or stored. */
export async function sessionExists(host: ReconcileHost, id: string, signal?: AbortSignal): Promise<boolean> {
  if (host.sessions.get(id as SessionId) !== undefined) return true
  const opts = signal === undefined ? {} : { signal }
  if (host.persistence.capabilities.locate) return (await host.persistence.locate(id, opts)) !== undefined
  try {
    await host.persistence.readFrom(id, Number.MAX_SAFE_INTEGER, opts)
    return true
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) return false
    throw error
  }
}

/**
 * Report a failure to index `id` at stored `revision`: an index write failure through the host; a read failure
 * once per revision — a corrupt or newer log is also recorded, so it is skipped until it changes.
 */
export function reportFailure(host: ReconcileHost, id: string, revision: string, error: unknown): void {
  if (!isSessionPersistenceError(error)) {
    host.indexFailed(id, 'stored', error)
    return
  }
  if (host.unreadable.get(id) !== revision) host.warn(`session "${id}": cannot be indexed: ${messageOf(error)}`)
  host.unreadable.set(id, revision)
  if (isSessionPersistenceError(error, 'SESSION_CORRUPT') || isSessionPersistenceError(error, 'SESSION_FORMAT_UNSUPPORTED')) host.store.markRevision(id, revision)
}

/** Index one listed session; false when it could not be (the failure is reported). */
async function indexListed(host: ReconcileHost, summary: SessionSummary, reset: boolean, signal?: AbortSignal): Promise<boolean> {
  const { id, revision, eventCount } = summary
  try {
    await indexStored(host, { id, revision: { value: revision, count: eventCount }, inherited: inheritedOf(summary.header), reset }, signal)
    host.unreadable.delete(id)
    return true
  } catch (error) {
    if (signal?.aborted === true) throw error
    if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) {
      host.store.forget(id)
      return true
    }
    reportFailure(host, id, revision, error)
    return false
  }
}

/**
 * Compare the listing with the index; index what changed, drop what is gone.
 * @throws the listing's errors, the index store's errors when it cannot be opened, `signal.reason` once aborted.
 */
export async function catchUp(host: ReconcileHost, options: CatchUpOptions = {}): Promise<IndexReport> {
  const { signal, onProgress } = options
  const summaries = await listAll(host, signal)
  const known = host.store.known()
  const listed = new Set<string>()
  const work: SessionSummary[] = []
  for (const summary of summaries) {
    listed.add(summary.id)
    if (known.get(summary.id)?.revision !== summary.revision) work.push(summary)
  }
  let removed = 0
  for (const id of known.keys()) {
    // A session updated while the listing was walked may be missing from it: only a lookup proves it gone.
    if (!listed.has(id) && !(await sessionExists(host, id, signal)) && host.store.forget(id)) removed++
  }
  let failed = 0
  for (let i = 0; i < work.length; i++) {
    signal?.throwIfAborted()
    if (!(await indexListed(host, work[i]!, false, signal))) failed++
    onProgress?.({ done: i + 1, total: work.length, sessionId: work[i]!.id })
  }
  return { sessions: summaries.length, indexed: work.length - failed, removed, failed }
}

/**
 * Rebuild the whole index from the store (emptied first), or only `sessionId` (read in one pass with its header).
 * @throws the persistence errors of the session asked for (`SESSION_NOT_FOUND`, …), the listing's errors, the index
 * store's errors, `signal.reason` once aborted.
 */
export async function reindex(host: ReconcileHost, options: ReindexOptions = {}): Promise<IndexReport> {
  const { signal, onProgress, sessionId } = options
  if (sessionId !== undefined) {
    const stored = await host.persistence.inspect(sessionId, signal === undefined ? {} : { signal })
    const end = stored.events.length
    await indexRange(host, {
      id: sessionId, source: 'stored', view: viewOf(stored.events, 0), start: 0, end,
      revision: stored.revision, inherited: inheritedOf(stored.header),
    }, true, signal)
    host.unreadable.delete(sessionId)
    onProgress?.({ done: 1, total: 1, sessionId })
    return { sessions: 1, indexed: 1, removed: 0, failed: 0 }
  }
  const summaries = await listAll(host, signal)
  host.store.clear()
  host.unreadable.clear()
  let failed = 0
  for (let i = 0; i < summaries.length; i++) {
    signal?.throwIfAborted()
    if (!(await indexListed(host, summaries[i]!, true, signal))) failed++
    onProgress?.({ done: i + 1, total: summaries.length, sessionId: summaries[i]!.id })
  }
  return { sessions: summaries.length, indexed: summaries.length - failed, removed: 0, failed }
}
