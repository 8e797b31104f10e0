/** Public types of `@logbook/session-search` (spec 04). Types only. */
import type { SessionId } from '@logbook/session'

/**
 * What part of an event a hit's text comes from (04 §2): message text by role, reasoning, a refusal, a tool call's name or
 * arguments, a tool result (or error), a compaction summary, a turn or compaction error, todos, an explicit title.
 */
export type SearchField =
  | 'system'
  | 'user'
  | 'plugin'
  | 'assistant'
  | 'reasoning'
  | 'refusal'
  | 'tool-name'
  | 'tool-arguments'
  | 'tool-result'
  | 'tool-error'
  | 'summary'
  | 'error'
  | 'todo'
  | 'title'

/** One piece of a snippet; `match: true` marks text the query matched. */
export interface SnippetPart {
  readonly text: string
  readonly match: boolean
}

/** One ranked search result: a piece of text of one event of one stored or live session. */
export interface SearchHit {
  readonly sessionId: SessionId
  /** The session's title (03 §1.5's `title` unit), when it has one. */
  readonly title?: string
  /** The turn the event belongs to, when it is inside one. */
  readonly turn?: number
  /** Seq of the event (`logbook show <id> --at <seq>` starts there). */
  readonly seq: number
  /** The event type (`user/message`, `tool/result`, …). */
  readonly type: string
  readonly field: SearchField
  /** True iff the event is on the session's surface now (the model sees it); false: only in the log. */
  readonly onSurface: boolean
  /** True iff the event is part of the prefix a fork child inherited from its parent. */
  readonly inherited: boolean
  /** The matched text around the match, cut at word or character boundaries, with the matches marked. */
  readonly snippet: readonly SnippetPart[]
  /** Relevance, higher is better (the negated bm25 rank; 0 for a match found by a substring scan). */
  readonly score: number
}

/**
 * How `query` reads its text: `plain` (the default) treats it as words and quoted phrases that must all occur;
 * `fts` passes it to SQLite FTS5 as a query expression over the word index (`AND`, `OR`, `NOT`, `NEAR`, `prefix*`).
 */
export type QuerySyntax = 'plain' | 'fts'

/** Options of `query`. */
export interface QueryOptions {
  /** Only hits of this session. */
  readonly sessionId?: string
  /** Integer 1–500; default from the config (`defaultLimit`, 20). */
  readonly limit?: number
  /** `true`: only events on the surface now; `false`: only log-only events; absent: both. */
  readonly onSurface?: boolean
  readonly syntax?: QuerySyntax
  /** Aborted at call time → rejects with exactly `signal.reason`; mid-way → the same, after the step in progress. */
  readonly signal?: AbortSignal
}

/** Progress of `catchUp` and `reindex`: `done` of `total` sessions, the one just finished named. */
export interface IndexProgress {
  readonly done: number
  readonly total: number
  readonly sessionId: string
}

/** Options of `catchUp`. */
export interface CatchUpOptions {
  readonly onProgress?: (progress: IndexProgress) => void
  readonly signal?: AbortSignal
}

/** Options of `reindex`. */
export interface ReindexOptions extends CatchUpOptions {
  /** Rebuild only this session (default: the whole index). */
  readonly sessionId?: string
}

/** What `catchUp` or `reindex` did. */
export interface IndexReport {
  /** Sessions the store lists (plus those live in this process). */
  readonly sessions: number
  /** Sessions whose new events were indexed. */
  readonly indexed: number
  /** Sessions dropped from the index because they are no longer stored. */
  readonly removed: number
  /** Sessions that could not be read (each logged once per stored revision). */
  readonly failed: number
}

/** Size of the index, for status lines. */
export interface IndexCounts {
  readonly sessions: number
  readonly texts: number
}

/** Payload of `search/indexed` (04 §5): after every committed indexing step of one session. */
export interface SearchIndexedEvent {
  readonly sessionId: string
  /** `live`: from a session live in this process; `stored`: from the store (catch-up, reindex, repair). */
  readonly source: 'live' | 'stored'
  /** True when the step replaced everything indexed for the session before. */
  readonly reset: boolean
  /** Events indexed before the step (0 after a reset) … after it. */
  readonly fromSeq: number
  readonly toSeq: number
  /** Text rows the step added. */
  readonly rows: number
}

/** Payload of `search/index-failed` (04 §5): an indexing step failed; nothing of it was committed. */
export interface SearchIndexFailedEvent {
  readonly sessionId: string
  readonly source: 'live' | 'stored'
  readonly error: unknown
}

/** Config of the plugin; defaults live in the schema (config.ts). */
export interface SessionSearchConfig {
  /** Index file; relative to the config file's folder (else the working directory); `:memory:` for none. */
  readonly path?: string
  readonly indexDelayMs: number
  readonly retryDelayMs: number
  readonly reconcileIntervalMs: number
  readonly busyTimeoutMs: number
  readonly sliceEvents: number
  readonly defaultLimit: number
  readonly snippetTokens: number
}

/** A session id as accepted by the API (branded or plain). */
export type SessionIdLike = SessionId | string
