/**
 * The state and algorithms behind `ctx.sessionSearch` (spec 04 §1): the index store, the commit follower, the
 * throttled catch-up before queries, argument checks, and the ordered teardown. It lives on a plain object because
 * Cordis hands callers a tracing proxy of the service.
 */
import type { Context } from '@deepseek-ai/cordis'
import { isValidSessionId, type SessionId, type SessionStore } from '@logbook/session'
import { sessionNotFound, type SessionPersistence } from '@logbook/session-persistence'
import { invalidArgument, messageOf, searchDisposed } from './errors.ts'
import { CommitFollower } from './follow.ts'
import { planQuery } from './plan.ts'
import { catchUp, reindex, type ReconcileHost, sessionExists } from './reconcile.ts'
import { type IndexHit, runSearch } from './search.ts'
import { IndexStore } from './store.ts'
import type {
  CatchUpOptions, IndexCounts, IndexReport, QueryOptions, ReindexOptions, SearchHit, SessionSearchConfig,
} from './types.ts'

type Listener = (...args: unknown[]) => unknown

/** The largest `limit` a query accepts. */
export const MAX_LIMIT = 500

/** Resolve with `work`, or reject with `signal.reason` as soon as it is aborted (the work itself goes on). */
function until<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work
  signal.throwIfAborted()
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

function toHit(hit: IndexHit): SearchHit {
  return Object.freeze({
    sessionId: hit.sessionId as SessionId,
    ...(hit.title === null ? {} : { title: hit.title }),
    ...(hit.turn === null ? {} : { turn: hit.turn }),
    seq: hit.seq,
    type: hit.type,
    field: hit.field,
    onSurface: hit.onSurface,
    inherited: hit.inherited,
    snippet: Object.freeze(hit.snippet.map(part => Object.freeze(part))),
    score: hit.score,
  })
}

/** The search service's state. */
export class SearchCore {
  readonly host: ReconcileHost
  readonly follower: CommitFollower
  readonly #config: SessionSearchConfig
  readonly #lifetime = new AbortController()
  readonly #inflight = new Set<Promise<unknown>>()
  #catching: Promise<IndexReport> | undefined
  #lastCatchUp: number | undefined
  #disposed = false
  /** Index writes are failing: warned once, until one succeeds. */
  #failing = false

  constructor(private readonly ctx: Context, config: SessionSearchConfig, location: string) {
    this.#config = config
    const logger = ctx.logger('session-search')
    const store = new IndexStore(location, config.busyTimeoutMs)
    const persistence: SessionPersistence = ctx.sessionPersistence
    const sessions: SessionStore = ctx.sessions
    this.host = {
      store, persistence, sessions, sliceEvents: config.sliceEvents, unreadable: new Map(),
      emit: (name, payload) => {
        if (name === 'search/indexed' && this.#failing) {
          this.#failing = false
          logger.info('indexing works again')
        }
        this.#emit(name, payload)
      },
      warn: text => logger.warn(text),
      indexFailed: (sessionId, source, error) => {
        this.#emit('search/index-failed', { sessionId, source, error })
        if (!this.#failing) logger.warn(`session "${sessionId}": indexing failed: ${messageOf(error)}; it is reindexed once the index can be written`)
        this.#failing = true
      },
    }
    this.follower = new CommitFollower(this.host, sessions, { index: config.indexDelayMs, retry: config.retryDelayMs })
  }

  /** Emit a diagnostic event, containing each listener's failure. */
  #emit(name: string, payload: unknown): void {
    let callbacks: Listener[]
    try {
      callbacks = this.ctx.events.dispatch('emit', [name, payload]) as Listener[]
    } catch (error) {
      this.host.warn(`${name} dispatch failed: ${messageOf(error)}`)
      return
    }
    for (const callback of callbacks) {
      try {
        const result = callback(payload) as { then?: unknown } | undefined
        if (typeof result?.then === 'function') (result as Promise<unknown>).then(undefined, (error: unknown) => this.host.warn(`${name} listener rejected: ${messageOf(error)}`))
      } catch (error) {
        this.host.warn(`${name} listener threw: ${messageOf(error)}`)
      }
    }
  }

  /** Run `work` as an operation teardown waits for; rejects `SEARCH_DISPOSED` after disposal. */
  #track<T>(work: () => Promise<T>): Promise<T> {
    if (this.#disposed) return Promise.reject(searchDisposed())
    const promise = work()
    this.#inflight.add(promise)
    promise.then(() => this.#inflight.delete(promise), () => this.#inflight.delete(promise))
    return promise
  }

  /** One catch-up at a time; callers share the one in flight. */
  #sharedCatchUp(options: CatchUpOptions): Promise<IndexReport> {
    if (this.#catching !== undefined) return this.#catching
    this.#lastCatchUp = Date.now()
    const run = catchUp(this.host, { ...options, signal: this.#lifetime.signal }).finally(() => {
      this.#catching = undefined
    })
    this.#catching = run
    return run
  }

  async query(text: string, options: QueryOptions = {}): Promise<SearchHit[]> {
    const { signal } = options
    if (this.#disposed) throw searchDisposed()
    const checked = this.#checkQuery(text, options)
    signal?.throwIfAborted()
    return this.#track(async () => {
      await until(this.follower.flush(), signal)
      const last = this.#lastCatchUp
      if (this.#catching !== undefined || last === undefined || Date.now() - last >= this.#config.reconcileIntervalMs) {
        await until(this.#sharedCatchUp({}), signal)
      }
      if (checked.sessionId !== undefined && !(await sessionExists(this.host, checked.sessionId, signal))) throw sessionNotFound(checked.sessionId)
      if (!this.host.store.exists()) return []
      let hits = runSearch(this.host.store, checked)
      const gone: string[] = []
      for (const id of new Set(hits.map(hit => hit.sessionId))) if (!(await sessionExists(this.host, id, signal))) gone.push(id)
      if (gone.length > 0) {
        for (const id of gone) this.host.store.forget(id)
        hits = runSearch(this.host.store, checked)
      }
      signal?.throwIfAborted()
      return hits.map(toHit)
    })
  }

  #checkQuery(text: string, options: QueryOptions) {
    if (typeof text !== 'string') throw invalidArgument(`search query must be a string, got ${typeof text}`)
    const limit = options.limit ?? this.#config.defaultLimit
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw invalidArgument(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${String(limit)}`)
    const { sessionId, onSurface, syntax = 'plain' } = options
    if (sessionId !== undefined && !isValidSessionId(sessionId)) throw invalidArgument(`invalid session id ${JSON.stringify(sessionId)}`)
    if (syntax !== 'plain' && syntax !== 'fts') throw invalidArgument(`syntax must be "plain" or "fts", got ${JSON.stringify(syntax)}`)
    if (onSurface !== undefined && typeof onSurface !== 'boolean') throw invalidArgument(`onSurface must be a boolean, got ${typeof onSurface}`)
    const plan = planQuery(text, syntax)
    return {
      text, plan, limit, snippetTokens: this.#config.snippetTokens,
      ...(sessionId === undefined ? {} : { sessionId }), ...(onSurface === undefined ? {} : { onSurface }),
    }
  }

  catchUp(options: CatchUpOptions = {}): Promise<IndexReport> {
    return this.#track(async () => {
      await until(this.follower.flush(), options.signal)
      return until(this.#sharedCatchUp(options), options.signal)
    })
  }

  reindex(options: ReindexOptions = {}): Promise<IndexReport> {
    const { sessionId, signal } = options
    if (sessionId !== undefined && !isValidSessionId(sessionId)) return Promise.reject(invalidArgument(`invalid session id ${JSON.stringify(sessionId)}`))
    return this.#track(async () => {
      await this.#catching?.catch(() => undefined)
      await until(this.follower.flush(), signal)
      const report = await reindex(this.host, options)
      if (sessionId === undefined) this.#lastCatchUp = Date.now()
      return report
    })
  }

  counts(): IndexCounts {
    if (this.#disposed) throw searchDisposed()
    return this.host.store.counts()
  }

  /** Teardown: refuse new calls, stop catch-ups, index what the follower holds, wait, close the index. */
  async dispose(): Promise<void> {
    this.#disposed = true
    this.#lifetime.abort(searchDisposed())
    await this.follower.close()
    await Promise.allSettled([...this.#inflight])
    this.host.store.close()
  }
}
