/**
 * `ctx.sessionPersistence` (spec 02 §1.1): the Service every backend package subclasses with
 * `super(ctx, config, backend)`. Each method runs its operation (open.ts, read.ts, listing.ts, delete.ts,
 * ownership.ts, projection-checkpoints.ts) on the coordinator, which holds all state: Cordis hands callers a tracing
 * proxy of the service, so state lives on a plain object, never on the proxied instance.
 */
import { type Context, Service } from '@deepseek-ai/cordis'
import type { SessionEvent, SessionHeader } from '@logbook/session'
import type { LockToken, PersistenceBackend } from './backend.ts'
import { Coordinator } from './coordinator.ts'
import { loadSession, type LoadedSession } from './load.ts'
import { deleteSession } from './delete.ts'
import type { Host } from './host.ts'
import { listSessions } from './listing.ts'
import { migrateSession } from './migrate.ts'
import { createSession, openSession } from './open.ts'
import { breakLock } from './ownership.ts'
import { readCheckpoint, writeCheckpoint } from './projection-checkpoints.ts'
import { inspectSession, locateSession, readSessionFrom } from './read.ts'
import { repairSession } from './repair-session.ts'
import type {
  BreakLockConfirmation,
  DeleteConfirmation,
  DeleteResult,
  ListPage,
  ListQuery,
  MigrateResult,
  OpenMode,
  OperationOptions,
  PersistenceCapabilities,
  ProjectionCheckpoint,
  RepairRequest,
  RepairResult,
  SessionHandle,
  SessionInspection,
  SessionPersistenceConfig,
  StoreLocation,
} from './types.ts'

/**
 * The persistence seam: stored sessions (open, create, list, inspect, read, delete), locks, projection checkpoints,
 * and write-behind of every live session in `ctx.sessions`. After disposal every method rejects
 * `PERSISTENCE_DISPOSED`.
 */
export class SessionPersistence<C extends SessionPersistenceConfig = SessionPersistenceConfig> extends Service {
  static inject = ['sessions']

  /** The backend's short name (`'memory'`, `'jsonl'`, `'sqlite'`). */
  readonly backendName: string
  /** What the backend can do. */
  readonly capabilities: PersistenceCapabilities
  /** The store's folder (JSONL root) or file (SQLite database) on this machine; `undefined` when it has none. */
  readonly storeLocation: StoreLocation | undefined
  private readonly coordinator: Coordinator

  constructor(ctx: Context, config: C, backend: PersistenceBackend<unknown, LockToken>) {
    super(ctx, 'sessionPersistence')
    this.backendName = backend.name
    this.capabilities = Object.freeze({ ...backend.capabilities })
    this.storeLocation = backend.storeLocation === undefined ? undefined : Object.freeze({ ...backend.storeLocation })
    this.coordinator = new Coordinator(ctx, config, backend)
  }

  /** Plugin start: resolves once the backend validated its store; a failure fails the plugin. */
  async [Service.init](): Promise<void> {
    await this.coordinator.ready
  }

  /**
   * A handle on a stored session; `'write'` takes claim and lock first and cuts a torn tail.
   * @throws `SESSION_NOT_FOUND`, `SESSION_LOCKED`, `SESSION_CORRUPT`, `SESSION_FORMAT_UNSUPPORTED`, `INVALID_ARGUMENT`.
   */
  open(id: string, mode: OpenMode, opts?: OperationOptions): Promise<SessionHandle> {
    return this.run(openSession, id, mode, opts)
  }

  /**
   * A write handle on a new id; the first non-empty append stores header and events atomically.
   * @throws `INVALID_ARGUMENT`, `SESSION_LOCKED`, `SESSION_ALREADY_EXISTS`.
   */
  create(header: SessionHeader, opts?: OperationOptions): Promise<SessionHandle> {
    return this.run(createSession, header, opts)
  }

  /** Stored sessions, newest first, paginated. @throws `INVALID_ARGUMENT` (limit, cursor). */
  list(query?: ListQuery, opts?: OperationOptions): Promise<ListPage> {
    return this.run(listSessions, query, opts)
  }

  /** Stored view plus what a resume would append; commits nothing. @throws `SESSION_NOT_FOUND`, `SESSION_CORRUPT`. */
  inspect(id: string, opts?: OperationOptions): Promise<SessionInspection> {
    return this.run(inspectSession, id, opts)
  }

  /**
   * A durable, balanced snapshot of `id` for tools outside the loop (02 §4.6): a live session here is flushed and
   * returned unless a turn is open; one nobody holds is repaired like a resume (closers appended) and released.
   * @throws `SESSION_BUSY` (open turn here, or another live writer), `SESSION_NOT_FOUND`, `SESSION_CORRUPT`, ….
   */
  load(id: string, opts?: OperationOptions): Promise<LoadedSession> {
    return loadSession(this, this.ctx.get('sessions'), id, opts)
  }

  /** Deep-frozen stored events with `seq >= fromSeq`, torn tail excluded. @throws `INVALID_ARGUMENT`, `SESSION_NOT_FOUND`. */
  readFrom(id: string, fromSeq: number, opts?: OperationOptions): Promise<readonly SessionEvent[]> {
    return this.run(readSessionFrom, id, fromSeq, opts)
  }

  /** Remove log, checkpoint and lock of `id`. @throws `DELETE_NOT_CONFIRMED`, `SESSION_LOCKED`, `SESSION_CONFLICT`. */
  delete(id: string, confirmation: DeleteConfirmation, opts?: OperationOptions): Promise<DeleteResult> {
    return this.run(deleteSession, id, confirmation, opts)
  }

  /** Remove a cross-process lock owned by `ownerId`, alive or not. @throws `SESSION_CONFLICT`, `INVALID_ARGUMENT`. */
  breakLock(id: string, confirmation: BreakLockConfirmation, opts?: OperationOptions): Promise<void> {
    return this.run(breakLock, id, confirmation, opts)
  }

  /** Absolute path of the stored artifact, or `undefined`. */
  locate(id: string, opts?: OperationOptions): Promise<string | undefined> {
    return this.run(locateSession, id, opts)
  }

  /** The stored projection checkpoint, or `undefined` when absent or no longer below the durable cursor. */
  readProjectionCheckpoint(id: string, opts?: OperationOptions): Promise<ProjectionCheckpoint | undefined> {
    return this.run(readCheckpoint, id, opts)
  }

  /**
   * Atomically replace the projection checkpoint of an id claimed in this coordinator.
   * @throws `SESSION_LOCKED`, `INVALID_ARGUMENT`, `CHECKPOINT_AHEAD`.
   */
  writeProjectionCheckpoint(id: string, checkpoint: ProjectionCheckpoint, opts?: OperationOptions): Promise<void> {
    return this.run(writeCheckpoint, id, checkpoint, opts)
  }

  /**
   * Under write ownership, plan the cut that makes a refused log open again: the first defect, every record from it
   * (or from `cutAt`) and the events they hold; with `confirm: 'cut-records'` keep a backup, then cut (02 §4.7).
   * @throws `SESSION_NOT_FOUND`, `SESSION_LOCKED`, `INVALID_ARGUMENT`, `SESSION_CORRUPT` (a damaged header), `STORE_IO`.
   */
  repair(id: string, request?: RepairRequest, opts?: OperationOptions): Promise<RepairResult> {
    return this.run(repairSession, id, request, opts)
  }

  /**
   * Under write ownership, rewrite a session of the older store format with a checksum on every record, keeping the
   * original until the user deletes it; SQLite migrates the whole database (02 §4.7). `migrated: false` when current.
   * @throws `SESSION_NOT_FOUND`, `SESSION_LOCKED`, `SESSION_CORRUPT`, `SESSION_FORMAT_UNSUPPORTED`, `STORE_IO`.
   */
  migrate(id: string, opts?: OperationOptions): Promise<MigrateResult> {
    return this.run(migrateSession, id, opts)
  }

  /** Run `operation` on the coordinator; teardown waits for it (§2.5 step 3). */
  private run<A extends unknown[], R>(operation: (host: Host, ...args: A) => Promise<R>, ...args: A): Promise<R> {
    const { coordinator } = this
    return coordinator.queue.track(operation(coordinator, ...args))
  }
}
