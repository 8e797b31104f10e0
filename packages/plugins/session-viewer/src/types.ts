/** Public types of `@logbook/session-viewer` (types only). */
import type { SessionEvent, SessionHeader } from '@logbook/session'

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

/** A search hit, as far as the viewer reads it. */
export interface ViewerSearchHit {
  readonly sessionId: string
  readonly title?: string
  readonly turn?: number
  readonly seq: number
  readonly type: string
  readonly field: string
  readonly onSurface: boolean
  readonly snippet: readonly { readonly text: string; readonly match: boolean }[]
}

/** The part of the search service (`ctx.sessionSearch`) the viewer calls. */
export interface ViewerSearch {
  query(text: string, options?: { sessionId?: string; limit?: number; syntax?: 'plain' | 'fts'; signal?: AbortSignal }): Promise<readonly ViewerSearchHit[]>
}
