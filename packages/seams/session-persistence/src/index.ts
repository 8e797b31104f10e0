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

// For apps: the service (the default export is its memory backend), config, the API's types, errors and events.
export { SessionPersistence }
export type {
  AppendResult,
  BreakLockConfirmation,
  ClaimKind,
  ClaimState,
  CommitSource,
  DeleteConfirmation,
  DeleteResult,
  ListPage,
  ListProblem,
  ListQuery,
  LockHolderDetails,
  MemorySessionPersistenceConfig,
  MigrateResult,
  OpenMode,
  OperationOptions,
  PersistenceCapabilities,
  PersistenceClaimEvent,
  PersistenceCommittedEvent,
  PersistenceWriteFailedEvent,
  ProjectionCheckpoint,
  RecoveryReport,
  RepairRecord,
  RepairRequest,
  RepairResult,
  SessionHandle,
  SessionInspection,
  SessionPersistenceConfig,
  SessionSummary,
  StoreLocation,
  TornTailReport,
} from './types.ts'
export {
  isSessionPersistenceError,
  PERSISTENCE_NOT_CONFIGURED_MESSAGE,
  SessionFormatUnsupportedError,
  SessionPersistenceCorruptionError,
  SessionPersistenceError,
} from './errors.ts'
export type {
  CorruptionErrorOptions,
  FormatDirection,
  FormatErrorOptions,
  SessionPersistenceErrorCode,
  SessionPersistenceErrorOptions,
} from './errors.ts'
export { trackDurableCursors } from './durable-cursors.ts'

// For backends: the hook contract, the shared record codec, config fields, owners and locks, listing order, and the
// error builders whose exact messages the spec quotes.
export type {
  BackendListQuery,
  BackendListResult,
  CommitResult,
  EncodedRecord,
  ExpectedState,
  LockInfo,
  LockOwner,
  LockToken,
  MigrationResult,
  PersistenceBackend,
  PhysicalScan,
  RecordResult,
  ScanRecord,
} from './backend.ts'
export {
  checksumProblem, decodeRecordText, decodeRecordValue, encodeBatch, hex8, MAX_ROW_BYTES, MAX_ROW_MEMBERS, recordChecksum,
} from './record-codec.ts'
export { headerColumnProblem, parseHeaderColumn, type HeaderColumns } from './header-columns.ts'
export { checkedBodyRecords, cutUpdatedAt, EventRowRecords, ROW_SEEK_WINDOW, type CheckedBodyRow, type EventRowColumns } from './event-rows.ts'
export { RevisionRowCounts } from './row-counts.ts'
export { persistenceConfigFields, withRetryBounds } from './config.ts'
export { createKeptCopy, fileStamp } from './kept-copies.ts'
export { isHolderDead, lockLostError, processLockedError } from './owners.ts'
export { compareSummaries, matchesQuery } from './listing.ts'
export { ListingMemo, type MemoInputs } from './listing-memo.ts'
export { formatVersionError, sessionNotFound, unknownEventTypeError } from './errors.ts'
export type { LoadedSession } from './load.ts'
