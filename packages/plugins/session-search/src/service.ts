/**
 * `ctx.sessionSearch` (spec 04 §1.1): full-text search over every stored session's text as a Cordis Service. The
 * instance is a thin shell over `SearchCore`, because Cordis hands callers a tracing proxy of the service.
 */
import { type Context, Service } from '@deepseek-ai/cordis'
import type {} from '@logbook/session-persistence'
import { SessionSearchConfigSchema } from './config.ts'
import { SearchCore } from './core.ts'
import './events.ts'
import { indexPath } from './location.ts'
import type {
  CatchUpOptions, IndexCounts, IndexReport, QueryOptions, ReindexOptions, SearchHit, SessionSearchConfig,
} from './types.ts'

/**
 * Full-text search over the text of every session the store holds — what the model sees and what the surface no
 * longer shows — kept current from this process's commits and caught up with other processes' at query time.
 * @throws (at plugin start) SessionSearchError `INDEX_PATH_REQUIRED` for a durable backend with no local location and
 * no `path`; invalid config fails with Cordis's `ValidationError`.
 */
export class SessionSearch extends Service {
  static inject = ['sessions', 'sessionPersistence']
  static Config = SessionSearchConfigSchema

  /** @internal The state and algorithms; not part of the public API. */
  readonly core: SearchCore
  /** The index file's absolute path, or `:memory:`. */
  readonly indexLocation: string

  constructor(ctx: Context, config: SessionSearchConfig) {
    super(ctx, 'sessionSearch')
    const location = indexPath(config.path, (ctx as { baseUrl?: string }).baseUrl, ctx.sessionPersistence)
    const core = new SearchCore(ctx, config, location)
    this.core = core
    this.indexLocation = location
    ctx.on('persistence/committed', event => core.follower.onCommitted(event))
    ctx.effect(() => () => core.dispose(), 'session-search teardown')
  }

  /**
   * The hits of `text`, best first: this process's commits are indexed first, and the store is compared with the
   * index (at most every `reconcileIntervalMs`); a session no longer stored never appears.
   * @throws SessionSearchError `INVALID_QUERY` (no term, or an FTS expression FTS5 rejects), `INVALID_ARGUMENT`
   * (limit, session id, syntax), `INDEX_UNAVAILABLE`, `SEARCH_DISPOSED`; persistence's `SESSION_NOT_FOUND` for an
   * unknown `sessionId`; `signal.reason` once aborted.
   */
  query(text: string, options?: QueryOptions): Promise<SearchHit[]> {
    return this.core.query(text, options)
  }

  /**
   * Compare the store with the index now and index what changed (sessions other processes wrote), reporting
   * progress per session; drops sessions no longer stored.
   * @throws the listing's persistence errors, `INDEX_UNAVAILABLE`, `SEARCH_DISPOSED`, `signal.reason` once aborted.
   */
  catchUp(options?: CatchUpOptions): Promise<IndexReport> {
    return this.core.catchUp(options)
  }

  /**
   * Rebuild the index from the store — all of it (emptied first), or one session — reporting progress per session.
   * @throws `INVALID_ARGUMENT`, persistence errors of the session asked for (`SESSION_NOT_FOUND`, …),
   * `INDEX_UNAVAILABLE`, `SEARCH_DISPOSED`, `signal.reason` once aborted.
   */
  reindex(options?: ReindexOptions): Promise<IndexReport> {
    return this.core.reindex(options)
  }

  /** How many sessions and texts the index holds (0 and 0 before the index file exists). @throws `INDEX_UNAVAILABLE` */
  counts(): IndexCounts {
    return this.core.counts()
  }
}
