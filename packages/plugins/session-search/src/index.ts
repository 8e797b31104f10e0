/**
 * `@logbook/session-search` (spec 04): full-text search over every session's text in a SQLite FTS5 index beside the
 * store. The default export is the plugin providing `ctx.sessionSearch`; the types, errors and the query planner are
 * exported beside it.
 */
import { SessionSearch } from './service.ts'
import './events.ts'

export default SessionSearch
export { SessionSearch }
export { SessionSearchConfigSchema } from './config.ts'
export type * from './types.ts'
export {
  isSessionSearchError, SESSION_SEARCH_ERROR_CODES, SessionSearchError,
} from './errors.ts'
export type { SessionSearchErrorCode } from './errors.ts'
export { planQuery, termsOf, type QueryPlan } from './plan.ts'
export { piecesOf, type Piece } from './extract.ts'
export { INDEX_FILE_IN_FOLDER, indexBesideFile } from './location.ts'
export { MAX_LIMIT } from './core.ts'
export { INDEX_APPLICATION_ID, INDEX_SCHEMA_VERSION } from './schema.ts'
