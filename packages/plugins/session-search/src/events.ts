/**
 * Cordis declarations of `@logbook/session-search` (spec 04 §5): the `ctx.sessionSearch` service key and the
 * diagnostic events, emitted with `emit` (listener failures contained and logged).
 */
import type { SessionSearch } from './service.ts'
import type { SearchIndexedEvent, SearchIndexFailedEvent } from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessionSearch: SessionSearch
  }
  interface Events {
    /** After every committed indexing step of one session. */
    'search/indexed'(event: SearchIndexedEvent): void
    /** An indexing step failed; nothing of it was committed. */
    'search/index-failed'(event: SearchIndexFailedEvent): void
  }
}

export {}
