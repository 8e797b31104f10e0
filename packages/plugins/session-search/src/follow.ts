/**
 * Keeping the index current with what this process stores (spec 04 §3.1). Every `persistence/committed` carries
 * the exact events a live writer (or a handle) just made durable; the follower queues them per session, off the
 * append path, and indexes them in one batch `indexDelayMs` later (or when a query flushes it). Indexing what is
 * stored rather than what is appended keeps the index a mirror of the store: it never holds an event a crash could
 * lose, so every process can trust it. A failure is contained (reported through the host) and the session is
 * reindexed from its log `retryDelayMs` later or at the next query.
 */
import type { Session, SessionEvent, SessionId, SessionStore } from '@logbook/session'
import { isSessionPersistenceError, type PersistenceCommittedEvent } from '@logbook/session-persistence'
import { EMPTY_FOLD, type LogView, viewOf } from './fold.ts'
import { indexRange, indexStored, type IndexTarget } from './indexer.ts'
import { type ReconcileHost, reportFailure } from './reconcile.ts'

/** Committed events of one session not indexed yet. */
interface Pending {
  /** Seq of `events[0]`. */
  readonly fromSeq: number
  /** Contiguous committed events, or `null` after a cut or a gap: then the store is read. */
  events: SessionEvent[] | null
  toSeq: number
  revision: string
  /** The live session the commits came from, kept so its events stay readable after it is detached. */
  session: Session | undefined
}

/** The follower's timing (from the config). */
export interface FollowDelays {
  readonly index: number
  readonly retry: number
}

/** A view of the first `limit` events of a live session. */
function liveView(session: Session, limit: number): LogView {
  const events = session.events
  return { at: seq => (seq < limit ? events[seq] : undefined), end: limit }
}

/** Queues committed events per session and indexes them in batches. */
export class CommitFollower {
  readonly #pending = new Map<string, Pending>()
  /** Sessions whose last indexing failed: the next run reindexes them from seq 0. */
  readonly #repairs = new Map<string, Pending>()
  #timer: ReturnType<typeof setTimeout> | undefined
  #retry: ReturnType<typeof setTimeout> | undefined
  #running: Promise<void> | undefined
  #closed = false

  constructor(private readonly host: ReconcileHost, private readonly sessions: SessionStore, private readonly delays: FollowDelays) {}

  /** Queue a commit; never throws and never does index work itself. */
  onCommitted(event: PersistenceCommittedEvent): void {
    if (this.#closed) return
    const id = event.sessionId
    const queued = this.#pending.get(id)
    const session = this.sessions.get(id as SessionId)
    if (queued === undefined) {
      const events = event.events.length === 0 ? null : [...event.events]
      this.#pending.set(id, { fromSeq: event.fromSeq, events, toSeq: event.toSeq, revision: event.revision, session })
    } else {
      queued.session = session ?? queued.session
      // A cut, or events that do not continue the queued ones, are read back from the store instead.
      if (event.events.length === 0 || event.fromSeq !== queued.toSeq || queued.events === null) queued.events = null
      else for (const e of event.events) queued.events.push(e)
      queued.toSeq = event.toSeq
      queued.revision = event.revision
    }
    this.#arm()
  }

  /** Index everything queued (and retry failed sessions) now; resolves when done, never rejects. */
  async flush(): Promise<void> {
    while (this.#running !== undefined) await this.#running
    if (this.#pending.size === 0 && this.#repairs.size === 0) return
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    const run = this.#run()
    this.#running = run
    try {
      await run
    } finally {
      this.#running = undefined
    }
  }

  /** Stop the timers, index what is queued (best effort), and refuse further work. */
  async close(): Promise<void> {
    if (this.#retry !== undefined) clearTimeout(this.#retry)
    this.#retry = undefined
    await this.flush()
    this.#closed = true
    if (this.#timer !== undefined) clearTimeout(this.#timer)
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#closed) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      void this.flush()
    }, this.delays.index)
    this.#timer.unref?.()
  }

  async #run(): Promise<void> {
    const repairs = [...this.#repairs]
    this.#repairs.clear()
    const batch = [...this.#pending]
    this.#pending.clear()
    for (const [id, pending] of repairs) await this.#index(id, pending, true)
    for (const [id, pending] of batch) await this.#index(id, pending, this.#repairs.has(id))
  }

  async #index(id: string, pending: Pending, reset: boolean): Promise<void> {
    const live = this.sessions.get(id as SessionId) ?? pending.session
    try {
      await this.#indexOne(id, pending, live, reset)
      this.#repairs.delete(id)
    } catch (error) {
      // A log this process cannot read (as opposed to an index it cannot write) is the next catch-up's to retry.
      if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) {
        this.host.store.forget(id)
        return
      }
      if (isSessionPersistenceError(error)) {
        reportFailure(this.host, id, pending.revision, error)
        return
      }
      this.host.indexFailed(id, live === undefined ? 'stored' : 'live', error)
      const later = this.#repairs.get(id)
      this.#repairs.set(id, later === undefined || later.toSeq < pending.toSeq ? { ...pending, events: null } : later)
      this.#armRetry()
    }
  }

  async #indexOne(id: string, pending: Pending, live: Session | undefined, reset: boolean): Promise<void> {
    const fold = reset ? EMPTY_FOLD : (this.host.store.session(id)?.fold ?? EMPTY_FOLD)
    if (!reset && pending.events !== null && fold.count >= pending.toSeq) return
    const inherited = live?.inheritedEventCount
    const target = (view: LogView, start: number): IndexTarget => ({
      id, source: live === undefined ? 'stored' : 'live', view, start, end: pending.toSeq, revision: pending.revision, inherited,
    })
    let first: IndexTarget | undefined
    if (!reset && pending.events !== null && fold.resume >= pending.fromSeq) first = target(viewOf(pending.events, pending.fromSeq), pending.fromSeq)
    else if (live !== undefined && live.seq >= pending.toSeq) first = target(liveView(live, pending.toSeq), 0)
    if (first === undefined) {
      await indexStored(this.host, { id, revision: { value: pending.revision, count: pending.toSeq }, inherited, reset })
      return
    }
    if (await indexRange(this.host, first, reset) === 'done') return
    if (live !== undefined && live.seq >= pending.toSeq) await indexRange(this.host, target(liveView(live, pending.toSeq), 0), true)
    else await indexStored(this.host, { id, revision: { value: pending.revision, count: pending.toSeq }, inherited, reset: true })
  }

  #armRetry(): void {
    if (this.#retry !== undefined || this.#closed) return
    this.#retry = setTimeout(() => {
      this.#retry = undefined
      void this.flush()
    }, this.delays.retry)
    this.#retry.unref?.()
  }
}
