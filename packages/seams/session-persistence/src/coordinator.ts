/**
 * The shared coordinator (spec 02 §1.4): claims, per-id FIFO serialisation of storage operations, live writers
 * (bound through the `session/*` events), diagnostic events and the ordered teardown (§2.5). Public operations live in
 * operations.ts and admin.ts; this file is the state and the plumbing they share.
 */
import type { Context } from '@deepseek-ai/cordis'
import {
  emitContained, isValidSessionId, type Session, type SessionEvent, type SessionHeader, warnFailures,
} from '@logbook/session'
import type { LockToken, PersistenceBackend } from './backend.ts'
import { type Claim, ClaimTable } from './claims.ts'
import { SessionPersistenceError } from './errors.ts'
import { HandleImpl } from './handle.ts'
import { type Binding, LiveWriter, type WriterHost } from './live-writer.ts'
import * as admin from './admin.ts'
import * as operations from './operations.ts'
import { claimLockedError } from './owners.ts'
import type {
  BreakLockConfirmation,
  ClaimKind,
  DeleteConfirmation,
  DeleteResult,
  ListPage,
  ListQuery,
  OpenMode,
  OperationOptions,
  PersistenceCommittedEvent,
  PersistenceWriteFailedEvent,
  ProjectionCheckpoint,
  SessionHandle,
  SessionInspection,
  SessionPersistenceConfig,
} from './types.ts'
import { about, describe, invalidArgument, NEVER_ABORTED, signalOf, throwIfAborted } from './util.ts'

/** The coordinator of one plugin instance; every public method of `SessionPersistence` lands here. */
export class Coordinator implements WriterHost {
  readonly backend: PersistenceBackend<unknown, LockToken>
  readonly packChunks: boolean
  readonly delays: WriterHost['delays']
  readonly claims: ClaimTable
  readonly handles = new Set<HandleImpl>()
  readonly writers = new Map<Session, LiveWriter>()
  /** Retiring writers whose session object was bound again before they finished (still flushed at teardown). */
  private readonly displaced = new Set<LiveWriter>()
  readonly logger: WriterHost['logger']
  /** Resolves once `backend.start()` succeeded. */
  readonly ready: Promise<void>
  /** Set when teardown began; its outcome (rejects `AggregateError` on failures). */
  disposal: Promise<void> | undefined
  private readonly queues = new Map<string, Promise<void>>()
  private readonly inflight = new Set<Promise<unknown>>()
  /** Logs a diagnostic listener's failure as `<event> listener threw: <error>` (02 §1.8). */
  private readonly failures = warnFailures(text => this.logger.warn(text), describe)

  constructor(private readonly ctx: Context, config: SessionPersistenceConfig, backend: PersistenceBackend<unknown, LockToken>) {
    this.backend = backend
    this.packChunks = config.packChunks
    this.delays = { window: config.writeBatchMaxDelayMs, retryInitial: config.retryInitialDelayMs, retryMax: config.retryMaxDelayMs }
    const logger = ctx.logger('session-persistence')
    this.logger = { info: text => logger.info(text), warn: text => logger.warn(text), error: text => logger.error(text) }
    this.claims = new ClaimTable((name, event) => this.emit(name, event))
    const start = Promise.resolve().then(() => backend.start(NEVER_ABORTED))
    start.catch(() => undefined) // observed by the plugin's init and by every operation
    this.ready = start

    // §2: listeners in this order, then bind every session already live.
    ctx.on('session/created', (session: Session) => {
      this.bind(session)
    })
    ctx.on('session/event', (session: Session, event: SessionEvent) => {
      if (this.disposal !== undefined) return
      ;(this.writers.get(session) ?? this.bind(session))?.onEvent(event)
    })
    ctx.on('session/flush', (session: Session) => {
      const writer = this.writers.get(session) ?? this.bind(session)
      if (writer === undefined) throw this.disposedError() // teardown began: nothing will store this session
      return writer.flush()
    })
    ctx.on('session/disposed', (session: Session) => {
      this.writers.get(session)?.retire()
    })
    ctx.effect(() => () => (this.disposal ??= this.teardown()), 'session-persistence teardown')
    for (const session of ctx.sessions.list()) this.bind(session)
  }

  // ----- plumbing -------------------------------------------------------------------------------------------------

  /** Emit a diagnostic event, containing each listener's failure (02 §1.8). */
  emit(name: string, payload: unknown): void {
    emitContained(this.ctx.events, this.failures, name, [payload])
  }

  committed(event: PersistenceCommittedEvent): void {
    this.emit('persistence/committed', event)
  }

  writeFailed(event: PersistenceWriteFailedEvent): void {
    this.emit('persistence/write-failed', event)
  }

  isKnownType(type: string): boolean {
    return this.ctx.sessions.isKnownEventType(type)
  }

  /** Run `task` after every earlier storage operation on `id` settled (per-id FIFO). */
  serial<T>(id: string, task: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(id) ?? Promise.resolve()).then(task)
    this.inflight.add(run)
    // One reaction both forgets the operation (teardown step 3) and frees the queue slot when nothing followed it.
    const settled: Promise<void> = run.then(done, done)
    const queues = this.queues
    const inflight = this.inflight
    function done(): void {
      inflight.delete(run)
      if (queues.get(id) === settled) queues.delete(id)
    }
    queues.set(id, settled)
    return run
  }

  /** Remember `promise` until it settles (teardown step 3 waits for it). */
  track<T>(promise: Promise<T>): Promise<T> {
    this.inflight.add(promise)
    const forget = (): void => {
      this.inflight.delete(promise)
    }
    promise.then(forget, forget)
    return promise
  }

  disposedError(): SessionPersistenceError {
    return new SessionPersistenceError('PERSISTENCE_DISPOSED', `${this.backend.name} session persistence was disposed`)
  }

  assertNotDisposed(): void {
    if (this.disposal !== undefined) throw this.disposedError()
  }

  /** Common prelude: disposed → aborted signal (02 §1.1). Returns the signal to pass on. */
  begin(opts: OperationOptions | undefined): AbortSignal {
    this.assertNotDisposed()
    const signal = signalOf(opts)
    throwIfAborted(signal)
    return signal
  }

  /** `begin`, then the id check with core's `isValidSessionId`. @throws `INVALID_ARGUMENT`. */
  beginFor(opts: OperationOptions | undefined, id: unknown): AbortSignal {
    const signal = this.begin(opts)
    if (!isValidSessionId(id)) throw invalidArgument(`invalid session id ${describe(id)}`)
    return signal
  }

  /**
   * Register a claim synchronously, or, when a retiring live session holds the id, after its in-flight attempt
   * (§2.5): drained → the claim, else `SESSION_LOCKED` `retiring`. @throws `SESSION_LOCKED`.
   */
  claim(id: string, kind: 'handle'): Claim | Promise<Claim> {
    const existing = this.claims.get(id)
    if (existing?.kind === 'retiring' && existing.holder instanceof LiveWriter) {
      const writer = existing.holder
      return writer.drain().then(() => this.claimAfterRetirement(id, writer, kind))
    }
    return this.claims.register(id, kind)
  }

  /** The claim of a claimant that waited for `retiring`; `SESSION_LOCKED` (cause: its last write error) if it still holds. */
  claimAfterRetirement(id: string, retiring: LiveWriter, kind: ClaimKind): Claim {
    const now = this.claims.get(id)
    if (now !== undefined) {
      throw claimLockedError(id, now.kind, now.holder === retiring ? retiring.lastError : undefined)
    }
    return this.claims.register(id, kind)
  }

  /** Release lock (best effort) and claim after a failed operation. */
  async abandon(claim: Claim, token: LockToken | undefined): Promise<void> {
    if (token !== undefined) {
      await this.serial(claim.id, () => this.backend.unlock(token, NEVER_ABORTED)).catch((error: unknown) => {
        this.logger.warn(`${about(claim.id)}releasing the lock failed: ${describe(error)}`)
      })
    }
    this.claims.release(claim)
  }

  // ----- binding (§2.1) -------------------------------------------------------------------------------------------

  /** Bind a live session (idempotent per object); resolves the claim synchronously. */
  bind(session: Session): LiveWriter | undefined {
    if (this.disposal !== undefined) return undefined
    const existing = this.writers.get(session)
    if (existing !== undefined && !existing.retiring) return existing
    // The same object re-entered and announced while its old writer retires: a new binding waits for it (§2.5).
    if (existing !== undefined) this.displaced.add(existing)
    const id = session.id
    const claim = this.claims.get(id)
    let binding: Binding
    if (claim === undefined) {
      binding = { kind: 'fresh', claim: this.claims.register(id, 'live-session') }
    } else if (claim.kind === 'handle' && claim.handedOff instanceof HandleImpl) {
      const handle = claim.handedOff
      claim.handedOff = undefined
      claim.kind = 'live-session'
      handle.adopt()
      binding = { kind: 'adopt', claim, handle }
    } else if (claim.kind === 'retiring' && claim.holder instanceof LiveWriter) {
      binding = { kind: 'wait-retiring', writer: claim.holder }
    } else {
      binding = { kind: 'locked', error: claimLockedError(id, claim.kind) }
    }
    const writer = new LiveWriter(this, session, binding)
    if (binding.kind === 'fresh' || binding.kind === 'adopt') binding.claim.holder = writer
    this.writers.set(session, writer)
    return writer
  }

  dropWriter(writer: LiveWriter): void {
    if (this.writers.get(writer.session) === writer) this.writers.delete(writer.session)
    this.displaced.delete(writer)
  }

  // ----- teardown (§2.5) ------------------------------------------------------------------------------------------

  private async teardown(): Promise<void> {
    const errors: unknown[] = []
    const started = await this.ready.then(() => true, () => false)
    const writers = [...this.writers.values(), ...this.displaced]
    if (started) {
      await Promise.all(writers.map(writer => writer.flushForTeardown().catch((error: unknown) => {
        errors.push(error)
      })))
    }
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight])
    for (const handle of [...this.handles]) await handle.close().catch((error: unknown) => errors.push(error))
    for (const writer of writers) await writer.close().catch((error: unknown) => errors.push(error))
    for (const claim of this.claims.all()) this.claims.release(claim)
    await this.backend.close().catch((error: unknown) => errors.push(error))
    if (errors.length > 0) throw new AggregateError(errors, `${this.backend.name} dispose failed`)
  }

  // ----- public operations ----------------------------------------------------------------------------------------

  open(id: string, mode: OpenMode, opts?: OperationOptions): Promise<SessionHandle> {
    return this.track(operations.open(this, id, mode, opts))
  }

  create(header: SessionHeader, opts?: OperationOptions): Promise<SessionHandle> {
    return this.track(operations.create(this, header, opts))
  }

  inspect(id: string, opts?: OperationOptions): Promise<SessionInspection> {
    return this.track(operations.inspect(this, id, opts))
  }

  readFrom(id: string, fromSeq: number, opts?: OperationOptions) {
    return this.track(operations.readFrom(this, id, fromSeq, opts))
  }

  list(query?: ListQuery, opts?: OperationOptions): Promise<ListPage> {
    return this.track(admin.list(this, query, opts))
  }

  delete(id: string, confirmation: DeleteConfirmation, opts?: OperationOptions): Promise<DeleteResult> {
    return this.track(admin.remove(this, id, confirmation, opts))
  }

  breakLock(id: string, confirmation: BreakLockConfirmation, opts?: OperationOptions): Promise<void> {
    return this.track(admin.breakLock(this, id, confirmation, opts))
  }

  locate(id: string, opts?: OperationOptions): Promise<string | undefined> {
    return this.track(admin.locate(this, id, opts))
  }

  readProjectionCheckpoint(id: string, opts?: OperationOptions): Promise<ProjectionCheckpoint | undefined> {
    return this.track(admin.readCheckpoint(this, id, opts))
  }

  writeProjectionCheckpoint(id: string, checkpoint: ProjectionCheckpoint, opts?: OperationOptions): Promise<void> {
    return this.track(admin.writeCheckpoint(this, id, checkpoint, opts))
  }
}
