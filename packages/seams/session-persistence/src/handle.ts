/**
 * `SessionHandle` (spec 02 §1.2): one stored session opened for read or write. Calls on one handle run in call order;
 * storage operations go through the coordinator's per-id queue. A write handle holds a claim and the lock until it
 * closes or a live session adopts it (§2.1 case 1).
 */
import {
  assertSessionEvent,
  deepFreeze,
  snapshotJsonValue,
  type SessionEvent,
  type SessionHeader,
  type SessionSeedEventState,
} from '@logbook/session'
import type { LockToken } from './backend.ts'
import type { Claim, ClaimHolder } from './claims.ts'
import { inheritedCount, lineageMarkerAt, readStored } from './classify.ts'
import { about, invalidArgument, SessionPersistenceError } from './errors.ts'
import type { Host } from './host.ts'
import { isSeqArgument, NEVER_ABORTED, signalOf, throwIfAborted } from './prelude.ts'
import { encodeBatch } from './record-codec.ts'
import type { AppendResult, OpenMode, OperationOptions, RecoveryReport, SessionHandle } from './types.ts'
import { describe } from './util.ts'

/** How a handle starts. */
export interface HandleInit {
  readonly id: string
  readonly mode: OpenMode
  readonly header: SessionHeader
  readonly nextSeq: number
  readonly revision: string | null
  /** `undefined` on a `create` handle until its first append materialises the session. */
  readonly incarnation: string | undefined
  readonly eventState: SessionSeedEventState
  readonly recovery: RecoveryReport
  /**
   * `open`'s decoded events, handed over by the first `read`: always on a write handle (the lock keeps them current),
   * on a read handle only when the backend reports the revision `open` saw.
   */
  readonly retained?: readonly SessionEvent[]
  readonly claim?: Claim
  readonly token?: LockToken
}

/** What a live writer takes over from an adopted handle once its queued calls settled (§2.1 case 1). */
export interface Handover {
  readonly header: SessionHeader
  readonly token: LockToken | undefined
  readonly nextSeq: number
  readonly revision: string | null
  /** The last stored event the handle saw or wrote (what the binding compares with the live log). */
  readonly lastEvent: SessionEvent | undefined
}

type HandleState = 'open' | 'handed-off' | 'adopted' | 'closed'

function closedError(id: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_HANDLE_CLOSED', `${about(id)}the handle is closed`, { sessionId: id })
}

/** The one `SessionHandle` implementation. */
export class HandleImpl implements SessionHandle, ClaimHolder {
  readonly id: string
  readonly mode: OpenMode
  readonly header: SessionHeader
  readonly inheritedEventCount: number
  readonly eventState: SessionSeedEventState
  readonly recovery: RecoveryReport
  nextSeq: number
  revision: string | null
  readonly token: LockToken | undefined
  private readonly claim: Claim | undefined
  /** The last stored event this handle saw or wrote (handed over on adoption). */
  private lastEvent: SessionEvent | undefined
  private incarnation: string | undefined
  private state: HandleState = 'open'
  private retained: readonly SessionEvent[] | undefined
  private tail: Promise<unknown> = Promise.resolve()
  private closing: Promise<void> | undefined

  constructor(private readonly host: Host, init: HandleInit) {
    this.id = init.id
    this.mode = init.mode
    this.header = init.header
    this.inheritedEventCount = inheritedCount(init.header)
    this.eventState = init.eventState
    this.recovery = init.recovery
    this.nextSeq = init.nextSeq
    this.revision = init.revision
    this.incarnation = init.incarnation
    this.retained = init.retained
    this.lastEvent = init.retained?.at(-1)
    this.claim = init.claim
    this.token = init.token
    host.handles.add(this)
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task)
    this.tail = run.catch(() => undefined) // ordering only: the caller receives the rejection
    return this.host.queue.track(run)
  }

  private check(opts: OperationOptions | undefined, writing: boolean): AbortSignal {
    this.host.assertNotDisposed()
    const signal = signalOf(opts)
    throwIfAborted(signal)
    if (writing && this.mode === 'read') {
      throw new SessionPersistenceError('HANDLE_READ_ONLY', `${about(this.id)}the handle is read-only`, { sessionId: this.id })
    }
    if (this.state !== 'open') throw closedError(this.id)
    return signal
  }

  /** Valid stored events from `fromSeq`. @throws `INVALID_ARGUMENT`, `SESSION_CONFLICT`, `SESSION_HANDLE_CLOSED`. */
  async read(fromSeq: number = 0, opts?: OperationOptions): Promise<readonly SessionEvent[]> {
    const signal = this.check(opts, false)
    if (!isSeqArgument(fromSeq)) throw invalidArgument(`fromSeq must be a non-negative safe integer, got ${describe(fromSeq)}`, this.id)
    return this.enqueue(async () => {
      this.host.assertNotDisposed()
      throwIfAborted(signal)
      const retained = this.retained
      if (retained !== undefined) {
        this.retained = undefined
        if (this.mode === 'write' || await this.unchangedSinceOpen(signal)) return fromSeq === 0 ? retained : retained.slice(fromSeq)
      }
      if (this.revision === null) return [] // a create handle before its first append: nothing stored
      const { backend } = this.host
      const scan = await this.host.queue.run(this.id, () => backend.scan(this.id, fromSeq > 0 ? { fromSeq } : {}, signal))
      throwIfAborted(signal)
      if (scan === undefined || (this.incarnation !== undefined && scan.incarnation !== this.incarnation)) {
        throw new SessionPersistenceError('SESSION_CONFLICT', `${about(this.id)}the session was deleted or re-created since it was opened`, {
          sessionId: this.id,
        })
      }
      const state = readStored(this.id, scan, type => this.host.isKnownType(type))
      if (this.mode === 'read') {
        this.nextSeq = state.nextSeq
        this.revision = scan.revision
      }
      const skip = Math.max(0, fromSeq - state.startSeq)
      return skip === 0 ? state.events : state.events.slice(skip)
    })
  }

  /** A read handle's store is still at the revision `open` saw (false when the backend cannot tell cheaply). */
  private async unchangedSinceOpen(signal: AbortSignal): Promise<boolean> {
    const { backend } = this.host
    if (backend.revision === undefined) return false
    const current = await this.host.queue.run(this.id, () => backend.revision!(this.id, signal))
    throwIfAborted(signal)
    return current === this.revision
  }

  /**
   * Store `events` durably at `nextSeq`; validated, encoded and their seqs captured before the first await, so a later
   * caller mutation changes nothing.
   * @throws `HANDLE_READ_ONLY`, `INVALID_ARGUMENT`, `SESSION_CONFLICT`, `SESSION_LOCKED`, `STORE_IO`.
   */
  async append(events: readonly SessionEvent[], opts?: OperationOptions): Promise<AppendResult> {
    const signal = this.check(opts, true)
    if (!Array.isArray(events)) throw invalidArgument('append expects an array of events', this.id)
    if (events.length === 0) return { nextSeq: this.nextSeq, revision: this.revision }
    const batch = events.slice()
    for (let i = 0; i < batch.length; i++) this.validate(batch[i], i)
    const seqs = batch.map(event => event.seq)
    // Applies only when this batch materialises the session (it then starts at seq 0, so index = seq).
    const lineage = this.header.isSeeded === true ? lineageMarkerAt(batch, this.header.seedLength ?? 0, 0) : undefined
    const last = deepFreeze(snapshotJsonValue(batch[batch.length - 1]!) as SessionEvent)
    const records = encodeBatch(batch, this.host.packChunks)
    return this.enqueue(async () => {
      this.host.assertNotDisposed()
      throwIfAborted(signal)
      const fromSeq = this.nextSeq
      for (let i = 0; i < seqs.length; i++) {
        const actual = seqs[i]!
        if (actual !== fromSeq + i) {
          throw new SessionPersistenceError(
            'SESSION_CONFLICT',
            `${about(this.id)}event at index ${i} has seq ${actual}; expected ${fromSeq + i}`,
            { sessionId: this.id, details: { index: i, expected: fromSeq + i, actual } },
          )
        }
      }
      const lazy = this.revision === null
      if (lazy && lineage !== undefined) throw invalidArgument(`the first batch of a seeded session ${lineage}`, this.id)
      const { backend } = this.host
      const token = this.token!
      const revision = this.revision
      const result = await this.host.queue.run(this.id, () => lazy
        ? backend.materialize(token, this.header, records, signal)
        : backend.append(token, { nextSeq: fromSeq, revision: revision! }, records, signal))
      this.nextSeq = result.nextSeq
      this.revision = result.revision
      if (result.incarnation !== undefined) this.incarnation = result.incarnation
      this.lastEvent = last
      this.retained = undefined
      this.host.committed({
        sessionId: this.id,
        source: 'handle',
        fromSeq,
        toSeq: result.nextSeq,
        events: batch,
        revision: result.revision,
        physicalLength: result.physicalLength,
        ownerId: this.claim!.owner.ownerId,
      })
      return { nextSeq: result.nextSeq, revision: result.revision }
    })
  }

  private validate(event: unknown, index: number): void {
    const e = event as { seq?: unknown; type?: unknown; ignorable?: unknown } | null
    const seq = typeof e === 'object' && e !== null ? describe(e.seq) : 'none'
    const type = typeof e === 'object' && e !== null ? describe(e.type) : 'none'
    const where = `event at index ${index} (seq ${seq}, type ${type})`
    try {
      assertSessionEvent(event)
    } catch (error) {
      throw invalidArgument(`${where}: ${describe(error)}`, this.id, error)
    }
    const valid = event as SessionEvent
    if (valid.ignorable !== true && !this.host.isKnownType(valid.type)) {
      throw invalidArgument(`${where}: type is not registered with the session store and the event is not ignorable`, this.id)
    }
  }

  /** Let the next binding of this id adopt the handle (§2.1 case 1). @throws `HANDLE_READ_ONLY`, `SESSION_HANDLE_CLOSED`. */
  handOff(): void {
    this.check(undefined, true)
    this.state = 'handed-off'
    this.claim!.handedOff = this
  }

  /**
   * A binding adopts this handle: from now on `close()` is a no-op and the writer owns claim and lock. Resolves, once
   * every queued call settled, with what the writer takes over.
   */
  adopt(): Promise<Handover> {
    this.state = 'adopted'
    this.retained = undefined
    this.host.handles.delete(this)
    return this.tail.then(() => ({
      header: this.header, token: this.token, nextSeq: this.nextSeq, revision: this.revision, lastEvent: this.lastEvent,
    }))
  }

  /** Idempotent: waits for in-flight appends, then releases lock and claim (unless a session adopted the handle). */
  close(): Promise<void> {
    if (this.state === 'adopted') return Promise.resolve()
    if (this.closing === undefined) {
      this.state = 'closed'
      if (this.claim !== undefined && this.claim.handedOff === this) this.claim.handedOff = undefined
      this.closing = this.host.queue.track(this.release())
    }
    return this.closing
  }

  private async release(): Promise<void> {
    try {
      await this.tail
      const { claim, token } = this
      if (claim === undefined || claim.released) return
      try {
        if (token !== undefined) await this.host.queue.run(this.id, () => this.host.backend.unlock(token, NEVER_ABORTED))
      } finally {
        this.host.claims.release(claim)
      }
    } finally {
      this.host.handles.delete(this)
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }
}
