/**
 * One indexing run for one session (spec 04 §3): fold the events after what the index holds, in slices of
 * `sliceEvents`, each committed in its own transaction that first checks the session's version (another process or
 * path may have committed meanwhile: then the run reloads and continues from there). A run whose view cannot prove
 * that the log only grew — the index is ahead of it, or the last indexed event differs — answers `needs-full`, and
 * the caller starts over from seq 0 with `reset`.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { SessionEvent, SessionHeader } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'
import { EMPTY_FOLD, foldRange, type FoldState, type LogView, viewOf } from './fold.ts'
import type { IndexStore, SessionRecord } from './store.ts'
import type { SearchIndexedEvent } from './types.ts'

/** What the indexing modules share. */
export interface IndexHost {
  readonly store: IndexStore
  readonly persistence: SessionPersistence
  readonly sliceEvents: number
  /** Emit a diagnostic event, containing listener failures. */
  emit(name: 'search/indexed' | 'search/index-failed', payload: unknown): void
  warn(text: string): void
  /** An index write failed: report it (`search/index-failed`; one warning per streak of failures). */
  indexFailed(sessionId: string, source: SearchIndexedEvent['source'], error: unknown): void
}

/** The events one run may read, and what it brings the index to. */
export interface IndexTarget {
  readonly id: string
  readonly source: SearchIndexedEvent['source']
  readonly view: LogView
  /** First seq `view` holds. */
  readonly start: number
  /** Index up to this seq (exclusive); at most `view.end`. */
  readonly end: number
  /** The stored revision at `end`, when known. */
  readonly revision: string | null
  /** Events inherited from a fork parent; `undefined` keeps what the index recorded. */
  readonly inherited: number | undefined
}

/** How a run ended. */
export type IndexOutcome = 'done' | 'needs-full'

/** Attempts after a version conflict before a run gives up (the next catch-up continues). */
const CONFLICT_ATTEMPTS = 4

/** Whether `view` shows that the log `base` describes only grew (the last indexed event is still there). */
function continues(base: FoldState, target: IndexTarget): boolean {
  if (base.count > target.end || base.resume < target.start) return false
  if (base.count === 0 || base.count - 1 < target.start) return true
  const last = target.view.at(base.count - 1)
  return last !== undefined && base.last !== null && last.type === base.last.type && last.time === base.last.time
}

/**
 * Index `target`; with `reset`, replace whatever the index holds for the session.
 * @throws the index store's errors (`SQLITE_BUSY`, I/O), and `signal.reason` once aborted between slices.
 */
export async function indexRange(host: IndexHost, target: IndexTarget, reset: boolean, signal?: AbortSignal): Promise<IndexOutcome> {
  for (let attempt = 0; attempt < CONFLICT_ATTEMPTS; attempt++) {
    const record: SessionRecord | undefined = host.store.session(target.id)
    let base = reset ? EMPTY_FOLD : (record?.fold ?? EMPTY_FOLD)
    if (!reset && !continues(base, target)) return 'needs-full'
    if (reset && target.start > 0) return 'needs-full'
    let version = record?.version ?? null
    let first = reset
    const inherited = target.inherited ?? (record === undefined ? 0 : storedInherited(host, target.id))
    if (base.count >= target.end && !reset) {
      if (target.revision !== null && record?.revision !== target.revision) host.store.markRevision(target.id, target.revision)
      return 'done'
    }
    let conflict = false
    while (first || base.count < target.end) {
      const end = Math.min(target.end, base.count + host.sliceEvents)
      const { state, rows, shadowed } = foldRange(target.view, base, end)
      const step = {
        reset: first, rows, shadowed, fold: state, inherited,
        revision: end === target.end ? target.revision : null,
        updatedAt: state.last?.time ?? 0,
      }
      if (!host.store.commit(target.id, version, step)) {
        conflict = true
        break
      }
      const event: SearchIndexedEvent = { sessionId: target.id, source: target.source, reset: first, fromSeq: first ? 0 : base.count, toSeq: state.count, rows: rows.length }
      host.emit('search/indexed', event)
      version = (version ?? 0) + 1
      base = state
      first = false
      if (base.count < target.end) {
        await yieldToLoop()
        signal?.throwIfAborted()
      }
    }
    if (!conflict) return 'done'
    reset = false // the conflicting step came from someone who read the log too: continue from theirs
  }
  return 'done'
}

function storedInherited(host: IndexHost, id: string): number {
  const row = host.store.statement('SELECT inherited FROM search_sessions WHERE id = ?').get(id) as { inherited: number } | undefined
  return row?.inherited ?? 0
}

/** A stored revision and the event count it describes. */
export interface KnownRevision {
  readonly value: string
  readonly count: number
}

/** What a stored read needs to know about the session. */
export interface StoredSource {
  readonly id: string
  /** The revision a listing or commit reported; recorded only if the read returns exactly its `count` events. */
  readonly revision: KnownRevision | null
  readonly inherited: number | undefined
  readonly reset: boolean
}

/** Events a fork child inherited, from its header. */
export function inheritedOf(header: SessionHeader): number {
  return header.isSeeded === true && typeof header.seedLength === 'number' ? header.seedLength : 0
}

/**
 * Index the stored session `source.id` from its store: read only the tail after what the index holds (from the
 * oldest pending chunk, or the last indexed event to check it is unchanged), and everything again when that check
 * fails or `reset` is asked for. A session the index does not hold yet is read with its header, in one pass.
 * @throws the persistence read errors (`SESSION_NOT_FOUND`, `SESSION_CORRUPT`, …) and the index store's errors.
 */
export async function indexStored(host: IndexHost, source: StoredSource, signal?: AbortSignal): Promise<void> {
  const opts = signal === undefined ? {} : { signal }
  const record = host.store.session(source.id)
  const fold = source.reset ? undefined : record?.fold
  const from = fold === undefined ? 0 : Math.min(fold.resume, Math.max(0, fold.count - 1))
  let { inherited } = source
  let events: readonly SessionEvent[]
  if (inherited === undefined && record === undefined) {
    const stored = await host.persistence.inspect(source.id, opts)
    events = stored.events
    inherited = inheritedOf(stored.header)
  } else {
    events = await host.persistence.readFrom(source.id, from, opts)
  }
  const target = (start: number): IndexTarget => {
    const end = start + events.length
    const revision = source.revision !== null && source.revision.count === end ? source.revision.value : null
    return { id: source.id, source: 'stored', view: viewOf(events, start), start, end, revision, inherited }
  }
  const start = record === undefined && source.inherited === undefined ? 0 : from
  if (await indexRange(host, target(start), source.reset, signal) === 'done') return
  if (start > 0) events = await host.persistence.readFrom(source.id, 0, opts)
  await indexRange(host, target(0), true, signal)
}
