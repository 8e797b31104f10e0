/**
 * The shared coordinator of one plugin instance (spec 02 §1.4): it builds what every operation runs against (the
 * backend, the per-id operation queue, the claims, the diagnostic events; see host.ts), binds live sessions
 * (live-sessions.ts) and runs the ordered teardown (§2.5). The public operations are functions of a `Host` (open.ts,
 * read.ts, listing.ts, delete.ts, ownership.ts, projection-checkpoints.ts); the service calls them directly.
 */
import type { Context } from '@deepseek-ai/cordis'
import { emitContained, warnFailures } from '@logbook/session'
import type { LockToken, PersistenceBackend } from './backend.ts'
import { ClaimTable } from './claims.ts'
import { SessionPersistenceError } from './errors.ts'
import type { Host, HostLogger, OpenHandle, WriteDelays } from './host.ts'
import { LiveSessions } from './live-sessions.ts'
import { OperationQueue } from './operation-queue.ts'
import { NEVER_ABORTED } from './prelude.ts'
import type { PersistenceCommittedEvent, PersistenceWriteFailedEvent, SessionPersistenceConfig } from './types.ts'
import { describe } from './util.ts'

/** The coordinator of one plugin instance. */
export class Coordinator implements Host {
  readonly backend: PersistenceBackend<unknown, LockToken>
  readonly packChunks: boolean
  readonly delays: WriteDelays
  readonly logger: HostLogger
  readonly claims: ClaimTable
  readonly queue = new OperationQueue()
  readonly handles = new Set<OpenHandle>()
  readonly ready: Promise<void>
  /** Set when teardown began; its outcome (rejects `AggregateError` on failures). */
  disposal: Promise<void> | undefined
  private readonly live: LiveSessions
  /** `ctx.events`, read once: each read through the context builds a new tracing wrapper (one per commit). */
  private readonly events: Context['events']
  /** Logs a diagnostic listener's failure as `<event> listener threw: <error>` (02 §1.8). */
  private readonly failures = warnFailures(text => this.logger.warn(text), describe)

  constructor(private readonly ctx: Context, config: SessionPersistenceConfig, backend: PersistenceBackend<unknown, LockToken>) {
    this.backend = backend
    this.events = ctx.events
    this.packChunks = config.packChunks
    this.delays = { window: config.writeBatchMaxDelayMs, retryInitial: config.retryInitialDelayMs, retryMax: config.retryMaxDelayMs }
    const logger = ctx.logger('session-persistence')
    this.logger = { info: text => logger.info(text), warn: text => logger.warn(text), error: text => logger.error(text) }
    this.claims = new ClaimTable((name, event) => this.emit(name, event))
    const start = Promise.resolve().then(() => backend.start(NEVER_ABORTED))
    start.catch(() => undefined) // observed by the plugin's init and by every operation
    this.ready = start

    // §2: the session listeners, then the teardown, then every session already live.
    this.live = new LiveSessions(ctx, this)
    ctx.effect(() => () => (this.disposal ??= this.teardown()), 'session-persistence teardown')
    this.live.bindAll(ctx.sessions.list())
  }

  /** Emit a diagnostic event, containing each listener's failure (02 §1.8). */
  emit(name: string, payload: unknown): void {
    emitContained(this.events, this.failures, name, [payload])
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

  disposedError(): SessionPersistenceError {
    return new SessionPersistenceError('PERSISTENCE_DISPOSED', `${this.backend.name} session persistence was disposed`)
  }

  assertNotDisposed(): void {
    if (this.disposal !== undefined) throw this.disposedError()
  }

  /** §2.5: flush every writer once, wait for in-flight operations, close handles and writers, release, close. */
  private async teardown(): Promise<void> {
    this.live.stop()
    const errors: unknown[] = []
    const started = await this.ready.then(() => true, () => false)
    const writers = this.live.all()
    if (started) {
      await Promise.all(writers.map(writer => writer.flushForTeardown().catch((error: unknown) => {
        errors.push(error)
      })))
    }
    await this.queue.settled()
    for (const handle of [...this.handles]) await handle.close().catch((error: unknown) => errors.push(error))
    for (const writer of writers) await writer.close().catch((error: unknown) => errors.push(error))
    for (const claim of this.claims.all()) this.claims.release(claim)
    await this.backend.close().catch((error: unknown) => errors.push(error))
    if (errors.length > 0) throw new AggregateError(errors, `${this.backend.name} dispose failed`)
  }
}
