/**
 * `@logbook/session` (spec 01): the append-only session event log, its model-visible surface, derived messages,
 * the `ctx.sessions` store (the default export, a Cordis Service), fork, repair closers and the chunk-row codec.
 */

import * as header from './header.ts'
import SessionStore from './session-store.ts'
import type * as types from './types.ts'

export default SessionStore
export { SessionStore }
export type { SessionEventCheck } from './session-store.ts'

export * from './types.ts'
// The id casts share their names with the branded types (01 §1.1): one value and one type per name.
/** Cast a string to a `SessionId` (no check; see `isValidSessionId`). */
export const SessionId = header.SessionId
export type SessionId = types.SessionId
/** Cast a string to a `MessageId` (no check). */
export const MessageId = header.MessageId
export type MessageId = types.MessageId
/** Cast a string to a `CallId` (no check). */
export const CallId = header.CallId
export type CallId = types.CallId
export {
  assertNever, ChunkRowError, codeOf, CodedError, describeValue, messageOf, printValue, SessionError, SessionForkError,
  SessionInvariantError,
} from './errors.ts'
export type { SessionErrorCode, SessionForkErrorCode } from './errors.ts'
export { emitContained, isThenable, warnFailures } from './contain.ts'
export type { DeliveryFailure, FailureSink } from './contain.ts'

export { deepFreeze, isJsonValue, snapshotJsonValue } from './json.ts'
export { jsonValueProblem, type JsonValueProblem } from './json-problem.ts'
export {
  assertSessionHeader, isSupportedSessionFormat, isValidSessionId, parsedHeaderError, SESSION_FORMAT_VERSION,
  SUPPORTED_SESSION_FORMAT_VERSIONS,
} from './header.ts'
export { assertSessionEvent } from './validate.ts'
export { CORE_SESSION_EVENT_TYPES, isSurfaceType } from './vocabulary.ts'

export { Session } from './session.ts'
export { foldSurface, isAppendSurfaceEvent, isReplacementSurfaceEvent, isSurfaceEvent, jsonEqual } from './surface.ts'
export { deriveEventMessage } from './derive.ts'
export { forkSeed } from './fork.ts'
export { openTurnClosers, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './closers.ts'
export { CHUNK_ROW_TAGS, decodeStorageRecord, decodeStorageRun, MIN_CHUNK_RUN, packChunkRuns } from './codec.ts'
export { PackedRun } from './packed-run.ts'
export type { PackedRunFields } from './packed-run.ts'
export { EventLog } from './event-log.ts'
export type { EventSource, LogSlot } from './event-log.ts'
export { eventsView } from './events-view.ts'
export type { ChunkRow, ChunkRowTag, StorageRecord } from './codec.ts'
export { noRuntimeInvariant } from './no-invariant.ts'
export type { NoRuntimeInvariant } from './no-invariant.ts'
export { enforceTracedRelations } from './traced-relations.ts'
export type { TracedRelations } from './traced-relations.ts'
