/**
 * Write-behind of one live `Session` object (spec 02 §2): the fixed window (§2.2), flush barriers (§2.3), retry and
 * terminal failure (§2.4) and retirement (§2.5); binding's asynchronous half (§2.1) is live-binding.ts. The writer
 * holds no copy of the log: a batch is the events of `session.events` from the durable cursor to `session.seq`, so
 * gaps fill themselves and nothing is reordered or dropped. The references `session/event` delivers are kept as
 * they arrive (`PendingEvents`), so a batch normally needs no walk over the log's read-only view.
 */
import type { Session, SessionEvent } from '@logbook/session'
import type { CommitResult, ExpectedState, LockToken } from './backend.ts'
import type { RetiringWriter } from './claims.ts'
import { about, isRetryableWriteError } from './errors.ts'
import { FlushTargets } from './flush-targets.ts'
import type { Host } from './host.ts'
import { type Binding, type BoundState, initBinding } from './live-binding.ts'
import { PendingEvents } from './pending-events.ts'
import { NEVER_ABORTED } from './prelude.ts'
import { encodeBatch } from './record-codec.ts'
import { RetryStreak } from './retry.ts'
import { describe } from './util.ts'

type Timer = ReturnType<typeof setTimeout>

const SETTLED: Promise<void> = Promise.resolve()

/** The live writer of one session object. */
export class LiveWriter implements RetiringWriter {
  /** The last write error (the `cause` of `SESSION_LOCKED` `retiring`). */
  lastError: unknown
  private readonly id: string
  /** Claim, lock, durable cursor and revision, as the binding set them. */
  private readonly bound: BoundState = { claim: undefined, token: undefined, cursor: 0, revision: null, last: undefined, lazy: false }
  /** Settles (never rejects) when init finished, successfully or not. */
  private readonly init: Promise<void>
  private initDone = false
  private terminal: { readonly error: unknown } | undefined
  /**
   * The window's timer (§2.2), made once and re-armed with `refresh()`: while armed it is not `unref`ed, so pending
   * events keep the process alive until written; disarmed it is `unref`ed and its expiry does nothing. Re-arming
   * one timer keeps Node's timer list for the window's duration alive instead of making and dropping it per flush.
   */
  private window: Timer | undefined
  private windowArmed = false
  /** The window expired during a write: the next write starts right after it. */
  private windowDue = false
  private writing: Promise<void> | undefined
  private inflightEnd = 0
  /** The first seq and the events of the write in flight (for its one settling reaction). */
  private inflightFrom = 0
  private inflightBatch: SessionEvent[] | undefined
  /** The retry timer (§2.4), `unref`ed. */
  private backoff: Timer | undefined
  private readonly streak: RetryStreak
  private readonly targets = new FlushTargets()
  private readonly arrived: PendingEvents
  private retireTarget: number | undefined
  /** Plugin teardown flushes once (§2.5 step 2): no window, no retry from then on. */
  private stopping = false
  private finished: Promise<void> | undefined

  /** `onReleased` runs once the writer let go of its claim (it is then dropped from the live sessions). */
  constructor(
    private readonly host: Host,
    readonly session: Session,
    binding: Binding,
    private readonly onReleased: (writer: LiveWriter) => void,
  ) {
    this.id = session.id
    this.streak = new RetryStreak(this.id, host.delays, host.logger)
    this.arrived = new PendingEvents(session.seq)
    if (binding.kind === 'adopt' || binding.kind === 'fresh') this.bound.claim = binding.claim
    this.init = initBinding(host, session, this, this.bound, binding).then(
      () => {
        this.initDone = true
        this.step()
      },
      (error: unknown) => {
        this.initDone = true
        this.fail(error)
      },
    )
  }

  /** The durable cursor. */
  get nextSeq(): number {
    return this.bound.cursor
  }

  get token(): LockToken | undefined {
    return this.bound.token
  }

  /** `session/disposed` reached this writer (it flushes, releases and drops itself) or it was closed. */
  get retiring(): boolean {
    return this.retireTarget !== undefined || this.finished !== undefined
  }

  // ----- window and batches (§2.2) --------------------------------------------------------------------------------

  private pending(): number {
    return this.session.seq - (this.writing === undefined ? this.bound.cursor : this.inflightEnd)
  }

  private retireUnmet(): boolean {
    return this.retireTarget !== undefined && this.bound.cursor < this.retireTarget
  }

  /** Cancel the armed window (its timer stays, disarmed and `unref`ed, for the next one). */
  private clearWindow(): void {
    if (this.windowArmed) this.window!.unref()
    this.windowArmed = false
    this.windowDue = false
  }

  /** Cancel the window and drop its timer: the writer stops writing. */
  private dropWindow(): void {
    this.clearWindow()
    if (this.window !== undefined) clearTimeout(this.window)
    this.window = undefined
  }

  private clearBackoff(): void {
    if (this.backoff !== undefined) clearTimeout(this.backoff)
    this.backoff = undefined
  }

  private armWindow(): void {
    if (this.window === undefined) this.window = setTimeout(this.windowExpired, this.host.delays.window)
    else this.window.ref().refresh()
    this.windowArmed = true
  }

  private readonly windowExpired = (): void => {
    if (!this.windowArmed) return
    this.windowArmed = false
    if (this.writing !== undefined) this.windowDue = true
    else this.startWrite()
  }

  /**
   * A `session/event` arrived: an event arriving while no window is armed arms one (also while a flush drains, so
   * its deadline counts from its arrival), unless a backoff runs: new events never shorten the retry delay.
   * `event` (the committed frozen event) is remembered for the batch that will write it.
   */
  onEvent(event: SessionEvent): void {
    if (this.terminal !== undefined || this.finished !== undefined) return
    this.arrived.add(event)
    if (!this.initDone || this.retireTarget !== undefined) return
    if (this.stopping || this.windowArmed || this.backoff !== undefined) return
    if (this.pending() > 0) this.armWindow()
  }

  /** Decide what to do next when idle. */
  private step(): void {
    if (!this.initDone || this.finished !== undefined || this.writing !== undefined) return
    if (this.terminal !== undefined) {
      if (this.retireTarget !== undefined) this.finishRetire()
      return
    }
    if (this.retireTarget !== undefined && this.bound.cursor >= this.retireTarget) {
      this.finishRetire()
      return
    }
    if (this.backoff !== undefined) return
    if (this.targets.unmet || (!this.stopping && (this.retireUnmet() || this.windowDue))) {
      this.startWrite()
      return
    }
    if (!this.stopping && this.retireTarget === undefined && !this.windowArmed && this.pending() > 0) this.armWindow()
  }

  private startWrite(): void {
    if (this.writing !== undefined || this.terminal !== undefined || this.finished !== undefined) return
    this.clearWindow()
    this.clearBackoff()
    const from = this.bound.cursor
    const to = this.session.seq
    if (to <= from) {
      this.targets.settle(from)
      this.step()
      return
    }
    this.inflightEnd = to
    this.inflightFrom = from
    this.inflightBatch = this.arrived.take(from, to, this.session)
    this.writing = this.write(from, this.inflightBatch)
  }

  private readonly afterWrite = (): void => {
    this.writing = undefined
    this.inflightBatch = undefined
    this.step()
  }

  /** The in-flight batch was stored: one reaction reports it and then lets the writer go on (no second hop). */
  private readonly storedOk = (result: CommitResult): void => {
    this.written(this.inflightFrom, this.inflightBatch!, result)
    this.afterWrite()
  }

  private readonly storedFailed = (error: unknown): void => {
    this.onWriteError(error)
    this.afterWrite()
  }

  /** One batch: encode, then the backend call; settles (never rejects) once it succeeded or failed. */
  private write(from: number, batch: SessionEvent[]): Promise<void> {
    const { backend } = this.host
    const bound = this.bound
    let stored: Promise<CommitResult>
    try {
      const records = encodeBatch(batch, this.host.packChunks)
      const token = bound.token!
      // After the first commit its result names the state exactly (its nextSeq is the cursor, `from`).
      const expect: ExpectedState = bound.last ?? { nextSeq: from, revision: bound.revision! }
      stored = this.host.queue.run(this.id, bound.lazy
        ? () => backend.materialize(token, this.session.header, records, NEVER_ABORTED)
        : () => backend.append(token, expect, records, NEVER_ABORTED))
    } catch (error) {
      this.onWriteError(error)
      return SETTLED.then(this.afterWrite)
    }
    return stored.then(this.storedOk, this.storedFailed)
  }

  /** The backend stored `batch` (from `from`): advance the cursor, report, settle the flushes it met. */
  private written(from: number, batch: readonly SessionEvent[], result: CommitResult): void {
    try {
      const bound = this.bound
      bound.cursor = result.nextSeq
      bound.last = result
      bound.lazy = false
      this.streak.succeeded()
      // The revision is read only by a listener that asks for it (a backend may hash it lazily).
      this.host.committed({
        sessionId: this.id, source: 'live', fromSeq: from, toSeq: result.nextSeq, events: batch,
        get revision() { return result.revision }, physicalLength: result.physicalLength, ownerId: bound.claim!.owner.ownerId,
      })
      this.targets.settle(bound.cursor)
    } catch (error) {
      this.onWriteError(error)
    }
  }

  // ----- failures (§2.4) ------------------------------------------------------------------------------------------

  /** The batch stays pending (the cursor did not move); retryable → backoff, else terminal. */
  private onWriteError(error: unknown): void {
    this.lastError = error
    if (!isRetryableWriteError(error)) {
      this.fail(error)
      return
    }
    const delay = this.streak.failed(error, !this.stopping)
    this.host.writeFailed({ sessionId: this.id, error, terminal: false, attempt: this.streak.length })
    this.targets.rejectAll(error)
    // The retry takes everything pending by then; a window armed during the failed write must not start it earlier.
    this.clearWindow()
    if (this.stopping) return
    this.backoff = setTimeout(() => {
      this.backoff = undefined
      this.startWrite()
    }, delay)
    this.backoff.unref?.()
  }

  /** Terminal failure: logged once, every flush rejects with this object, no further backend call. */
  private fail(error: unknown): void {
    if (this.terminal !== undefined) return
    this.terminal = { error }
    this.lastError = error
    this.dropWindow()
    this.clearBackoff()
    this.arrived.clear()
    this.host.logger.error(`${about(this.id)}persistence stopped: ${describe(error)}`)
    this.host.writeFailed({ sessionId: this.id, error, terminal: true, attempt: this.streak.length + 1 })
    this.targets.rejectAll(error)
    this.step()
  }

  // ----- flush (§2.3) ---------------------------------------------------------------------------------------------

  /**
   * Resolve once every event below `session.seq` at call time is durable: the flush's one promise, settled by the
   * write that reaches its target. @throws the write or terminal error (as the rejection).
   */
  flush(): Promise<void> {
    if (this.terminal !== undefined) return Promise.reject(this.terminal.error)
    const target = this.session.seq
    this.clearWindow()
    return this.initDone ? this.flushTo(target) : this.init.then(() => this.flushTo(target))
  }

  private flushTo(target: number): Promise<void> {
    if (this.terminal !== undefined) return Promise.reject(this.terminal.error) // set by init's failure
    if (this.bound.cursor >= target) {
      this.step()
      return Promise.resolve()
    }
    if (this.finished !== undefined) return Promise.reject(this.host.disposedError())
    const done = this.targets.wait(target)
    if (this.writing === undefined) this.startWrite()
    return done
  }

  // ----- retirement and teardown (§2.5) ---------------------------------------------------------------------------

  /** `session/disposed`: flush to `session.seq`, then release lock and claim and drop the writer. */
  retire(): void {
    if (this.retireTarget !== undefined || this.finished !== undefined) return
    this.retireTarget = this.session.seq
    if (this.bound.claim !== undefined) this.host.claims.retire(this.bound.claim, this)
    this.clearWindow()
    this.step()
  }

  /** For a claimant meeting this retiring writer: run (or wait for) one attempt, then for the release. */
  async drain(): Promise<void> {
    await this.init
    if (this.writing === undefined && this.backoff !== undefined) this.startWrite()
    if (this.writing !== undefined) await this.writing
    if (this.finished !== undefined) await this.finished.catch(() => undefined)
  }

  private finishRetire(): void {
    if (this.finished !== undefined) return
    this.finished = this.release()
    this.finished.catch((error: unknown) => {
      this.host.logger.warn(`${about(this.id)}releasing the lock failed: ${describe(error)}`)
    })
  }

  private async release(): Promise<void> {
    this.dropWindow()
    this.clearBackoff()
    this.arrived.clear()
    const { claim, token } = this.bound
    this.bound.token = undefined
    try {
      if (claim !== undefined && !claim.released && token !== undefined) {
        await this.host.queue.run(this.id, () => this.host.backend.unlock(token, NEVER_ABORTED))
      }
    } finally {
      if (claim !== undefined) this.host.claims.release(claim)
      this.onReleased(this)
    }
  }

  /** Teardown step 2: flush to the current `session.seq` once, no retry. @throws the failure. */
  async flushForTeardown(): Promise<void> {
    await this.init
    if (this.terminal !== undefined) throw this.terminal.error
    if (this.finished !== undefined) return
    this.stopping = true
    this.clearBackoff()
    await this.flush()
  }

  /** Teardown step 4: stop timers, release lock and claim. @throws the unlock failure. */
  async close(): Promise<void> {
    this.stopping = true
    await this.init
    if (this.writing !== undefined) await this.writing
    this.clearBackoff()
    this.finished ??= this.release()
    return this.finished
  }
}
