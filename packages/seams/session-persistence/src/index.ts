/**
 * `@logbook/session-persistence` (spec 02): the persistence seam `ctx.sessionPersistence`, the shared coordinator
 * (claims, write-behind, resume and repair), the backend hook contract, the shared record codec, and the in-memory
 * reference backend `MemorySessionPersistence` (the default export).
 */
import type { Context } from '@deepseek-ai/cordis'
import { MemoryConfigSchema } from './config.ts'
import { MemoryBackend } from './memory-backend.ts'
import { SessionPersistence } from './service.ts'
import type { MemorySessionPersistenceConfig } from './types.ts'
import './events.ts'

/**
 * The in-memory backend as a Cordis plugin: not durable; same-named instances (`storeName`) in one process share
 * storage, so a reloaded instance adopts what the previous one wrote.
 */
export default class MemorySessionPersistence extends SessionPersistence<MemorySessionPersistenceConfig> {
  static Config = MemoryConfigSchema

  constructor(ctx: Context, config: MemorySessionPersistenceConfig) {
    super(ctx, config, new MemoryBackend(config))
  }
}

export { MemorySessionPersistence, SessionPersistence }
export type * from './types.ts'
export type * from './backend.ts'
export {
  formatVersionError,
  isRetryableWriteError,
  isSessionPersistenceError,
  PERSISTENCE_NOT_CONFIGURED_MESSAGE,
  SESSION_PERSISTENCE_ERROR_CODES,
  SessionFormatUnsupportedError,
  SessionPersistenceCorruptionError,
  SessionPersistenceError,
  sessionNotFound,
  unknownEventTypeError,
} from './errors.ts'
export type {
  CorruptionErrorOptions,
  FormatDirection,
  FormatErrorOptions,
  SessionPersistenceErrorCode,
  SessionPersistenceErrorOptions,
} from './errors.ts'
export {
  decodeRecordText,
  decodeRecordValue,
  encodeBatch,
  encodeEventText,
  isTurnEndEvidence,
  MAX_ROW_BYTES,
  MAX_ROW_MEMBERS,
} from './record-codec.ts'
export { MemoryConfigSchema, persistenceConfigFields, SessionPersistenceConfigSchema, withRetryBounds } from './config.ts'
export { compareIds, compareSummaries, matchesQuery, pageOf } from './list-order.ts'
export {
  claimLockedError,
  isHolderDead,
  lockLostError,
  processHolderDetails,
  processLockedError,
  processStartOf,
} from './owners.ts'
export { checkStoredHeader } from './classify.ts'
export { trackDurableCursors } from './durable-cursors.ts'
export type { LoadedSession } from './load.ts'
