/**
 * `@logbook/session-projection` (spec 03 §1): incremental per-session read models. The default export is the
 * plugin providing `ctx.sessionProjections`; the built-in units `stats`, `todos` and `title`, `appendTitle`,
 * `foldProjection` and the types (merge your state types into `ProjectionStates`) are exported beside it.
 */
import { SessionProjections } from './service.ts'
import './events.ts'

export default SessionProjections
export { SessionProjections }
export type * from './types.ts'
export { PROJECTION_ERROR_CODES, ProjectionError } from './errors.ts'
export type { ProjectionErrorCode } from './errors.ts'
export { foldProjection } from './fold.ts'
export { StatsStateSchema, TitleStateSchema, TodosStateSchema } from './schemas.ts'
export { statsProjection } from './stats.ts'
export { todosProjection } from './todos.ts'
export { appendTitle, SESSION_TITLE_EVENT, titleProjection } from './title.ts'
