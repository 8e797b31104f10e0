/**
 * What every stored-session operation, handle, live writer and repair runs against (spec 02 §1.4): the backend hooks,
 * the per-id operation queue, the claims, the diagnostic events and the disposed state of one coordinator. Types only;
 * `Coordinator` (coordinator.ts) implements it.
 */
import type { LockToken, PersistenceBackend } from './backend.ts'
import type { ClaimTable } from './claims.ts'
import type { SessionPersistenceError } from './errors.ts'
import type { OperationQueue } from './operation-queue.ts'
import type { PersistenceCommittedEvent, PersistenceWriteFailedEvent } from './types.ts'

/** The write-behind delays of the validated config (02 §1.5), in ms. */
export interface WriteDelays {
  readonly window: number
  readonly retryInitial: number
  readonly retryMax: number
}

/** Where the coordinator logs (`session-persistence`). */
export interface HostLogger {
  info(text: string): void
  warn(text: string): void
  error(text: string): void
}

/** An open write or read handle, closed by teardown (§2.5 step 4). */
export interface OpenHandle {
  close(): Promise<void>
}

/** The narrow interface of one coordinator. */
export interface Host {
  readonly backend: PersistenceBackend<unknown, LockToken>
  /** Every hook call for one id goes through `queue.run(id, …)`; public operations are `queue.track`ed. */
  readonly queue: OperationQueue
  readonly claims: ClaimTable
  readonly handles: Set<OpenHandle>
  /** Resolves once `backend.start()` succeeded; rejects with its failure. */
  readonly ready: Promise<void>
  readonly packChunks: boolean
  readonly delays: WriteDelays
  readonly logger: HostLogger
  /** Emit `persistence/committed`, containing each listener's failure (02 §1.8). */
  committed(event: PersistenceCommittedEvent): void
  /** Emit `persistence/write-failed`, containing each listener's failure. */
  writeFailed(event: PersistenceWriteFailedEvent): void
  /** `ctx.sessions.isKnownEventType`. */
  isKnownType(type: string): boolean
  /** @throws `PERSISTENCE_DISPOSED` once teardown began. */
  assertNotDisposed(): void
  /** The `PERSISTENCE_DISPOSED` error of this coordinator. */
  disposedError(): SessionPersistenceError
}
