/** Public types of `@logbook/session-viewer` (types only). */
import type { SessionEvent, SessionHeader } from '@logbook/session'
import type { SearchHit, SessionSearch } from '@logbook/session-search'

/** The plugin config; defaults live in the schema (config.ts). */
export interface SessionViewerConfig {
  readonly port: number
  readonly turnsPerPage: number
  readonly pollIntervalMs: number
  readonly cachedSessions: number
  readonly listLimit: number
  readonly searchLimit: number
  readonly originalsShown: number
}

/** A stored session as read: its header and its events from seq 0. */
export interface StoredLog {
  readonly header: SessionHeader
  readonly events: readonly SessionEvent[]
}

/** A search hit, as `ctx.sessionSearch.query` returns it (spec 04). */
export type ViewerSearchHit = SearchHit

/** The part of the search service (`ctx.sessionSearch`, `@logbook/session-search`) the viewer calls. */
export type ViewerSearch = Pick<SessionSearch, 'query'>
