/**
 * The `Session` (spec 01 §1.6): one append-only, deeply frozen event log with its surface, derived-message cache
 * and request folds, plus the §3 append pipeline. Construction (§5) lives in `seed.ts`; the store (§6) attaches a
 * `SessionLink` when the session is entered.
 */

import { DerivedMessages } from './derive.ts'
import { printValue, SessionError } from './errors.ts'
import type { EventLog } from './event-log.ts'
import { eventsView } from './events-view.ts'
import { NOT_JSON, snapshotFrozen } from './json.ts'
import type { LogIndex } from './log-index.ts'
import { callContained, type FailureSink, type Listener } from './contain.ts'
import { payloadProblem } from './payload.ts'
import {
  buildCreated, buildRestored, buildShared, type BuiltSession, type ForkPrefix, nextEventTime, type SharedSessionInit,
} from './seed.ts'
import { planSurface, type SurfacePlan } from './surface.ts'
import type {
  LogAppendOptions, Message, RequestContext, RequestHeader, RestoreInit, SessionEvent, SessionEventMap,
  SessionEventType, SessionHeader, SessionId, SessionInit, SessionSurface, SurfaceAppendOptions, SurfaceEventType,
} from './types.ts'
import { assertEventTypeName, isSurfaceType, unknownEventTypeError } from './vocabulary.ts'

/** A pre-commit check (§3.4): throw to veto; return a callback to run once the event commits. */
export type SessionEventCheck = (session: Session, event: SessionEvent) => void | (() => void)

/** @internal What an entered session needs from its store; implemented in `hub.ts`. */
export interface SessionHub {
  /** Log one line at warn level (the store's `ctx.logger('sessions')`). */
  warn(text: string): void
  /** Where a `session/event` listener's failure is logged. */
  readonly failures: FailureSink
  isKnownEventType(type: string): boolean
  /** The checks in registration order (a snapshot: registering during an append does not affect it). */
  checks(): readonly SessionEventCheck[]
  /**
   * Resolve the `session/event` listeners as Cordis dispatch does (may throw, e.g. from an `internal/dispatch`
   * hook); each is then called with `this = session`.
   */
  resolveEventListeners(session: Session, event: SessionEvent): readonly Listener[]
  /** Run a detach that was deferred while the session was announcing or appending. */
  settle(link: SessionLink): void
}

/** @internal The store entry a session is attached to; `session.link` is undefined while detached. */
export interface SessionLink {
  readonly hub: SessionHub
  announced: boolean
  announcing: boolean
  appending: boolean
  detachRequested: boolean
}

type AppendOptions<T extends SessionEventType> = T extends SurfaceEventType ? [opts: SurfaceAppendOptions] : [opts?: LogAppendOptions]

function invalidEvent(type: string, detail: string): SessionError {
  return new SessionError('INVALID_EVENT', `event "${type}": ${detail}`)
}


/** An append-only session log: validated, frozen, surface-tracked; published only while attached to a store. */
export class Session {
  /** The session id; equals `header.id`. */
  readonly id: SessionId
  /** The validated, frozen header (§5.6). */
  readonly header: SessionHeader
  /** The seed length given to this constructor: events before it were never published by this process (§5.5). */
  readonly firstLiveSeq: number
  /** The number of leading events inherited from a parent at fork time (§5.5). */
  readonly inheritedEventCount: number
  /** @internal The store entry while entered; managed by `SessionStore`. */
  link: SessionLink | undefined = undefined

  private readonly log: EventLog
  private readonly surfaceState: BuiltSession['surface']
  private readonly index: LogIndex
  private readonly derived = new DerivedMessages()
  private view: readonly SessionEvent[] | undefined = undefined

  private constructor(built: BuiltSession) {
    this.id = built.header.id
    this.header = built.header
    this.firstLiveSeq = built.firstLiveSeq
    this.inheritedEventCount = built.inheritedEventCount
    this.log = built.log
    this.surfaceState = built.surface
    this.index = built.index
  }

  /**
   * Build a detached session from an optional seed, snapshotting every event and the header (mode `snapshot`,
   * §5.1); the seed is reproduced exactly, with no marker added.
   * @throws SessionError `INVALID_SESSION_ID`, `INVALID_HEADER`, `NOT_JSON`, `INVALID_EVENT`, `INVALID_SURFACE`,
   * `INVALID_SEED` (seed errors carry `index` and the `seed event at index <i>: ` prefix).
   */
  static create(id: SessionId, init?: SessionInit): Session {
    return new Session(buildCreated(id, init))
  }

  /**
   * Rebuild a detached session from a stored log (mode `init.eventState`, §5.1), appending `session/end-seed {}`
   * unless the log already ends with a marker (§5.4).
   * @throws SessionError as `create`, plus `INVALID_SEED` for an unfrozen `shared-frozen` event.
   */
  static fromRestore(id: SessionId, init: RestoreInit): Session {
    return new Session(buildRestored(id, init))
  }

  /**
   * @internal Build a fork child around `prefix` (from the parent's `forkPrefix`), whose events are taken with no
   * check or copy; only `tail` (marker and closers) gets the §5.2 checks.
   * @throws SessionError as `create`.
   */
  static fromShared(id: SessionId, init: SharedSessionInit): Session {
    return new Session(buildShared(id, init))
  }

  /** An immutable O(1) view of the log as of now; the same object until the next commit (§3.6). */
  get events(): readonly SessionEvent[] {
    return this.view ??= eventsView(this.log, this.log.length)
  }

  /** The next seq: always `events.length`. */
  get seq(): number {
    return this.log.length
  }

  /**
   * The type of the event at `seq`, `undefined` outside the log: `events[seq]?.type` without building a packed chunk
   * member (§3.6), for readers that scan a long log for a few types.
   */
  typeAt(seq: number): string | undefined {
    return this.log.runAt(seq) !== undefined ? 'assistant/chunk' : this.log.at(seq)?.type
  }

  /** The surface as of now: frozen nodes whose identity changes only when the surface changes (§4). */
  get surface(): SessionSurface {
    return this.surfaceState.snapshot()
  }

  /** The model-visible messages: a fresh array of the stored frozen messages, projected from the nodes (§4.8). */
  deriveMessages(): Message[] {
    const surface = this.surfaceState
    return this.derived.derive(surface.nodes, surface.replaceGeneration, this.log)
  }

  /** The `header` of the latest `request/header`, frozen, or `undefined`. */
  requestHeader(): RequestHeader | undefined {
    return this.index.requestHeader(this.log)
  }

  /** The data of the latest `request/context`, frozen, or `undefined`. */
  requestContext(): RequestContext | undefined {
    return this.index.requestContext(this.log)
  }

  /**
   * Validate, freeze and commit one event (§3.1); on a published session run the checks first and notify the
   * `session/event` listeners after. Returns the committed frozen event. Any failure leaves no trace.
   * @throws SessionError `REENTRANT_APPEND`, `RESERVED_EVENT`, `INVALID_EVENT`, `UNKNOWN_EVENT_TYPE`, `NOT_JSON`,
   * `INVALID_SURFACE`; a check's or an `internal/dispatch` hook's error unchanged.
   */
  append<T extends SessionEventType>(type: T, data: SessionEventMap[T], ...opts: AppendOptions<T>): SessionEvent<T>
  append(type: string, data: unknown, options?: unknown): SessionEvent {
    const link = this.link
    const published = link !== undefined && link.announced
    if (published) {
      if (link.appending) {
        throw new SessionError('REENTRANT_APPEND',
          `session "${this.id}": append cannot reenter while another append is being published`)
      }
      if (link.announcing) {
        throw new SessionError('REENTRANT_APPEND',
          `session "${this.id}": append cannot run while session/created is being dispatched`)
      }
    }
    if (type === 'session/end-seed') {
      throw new SessionError('RESERVED_EVENT', 'event "session/end-seed" is written only by session construction')
    }
    assertEventTypeName(type)
    const candidate = this.build(type, data, options, link === undefined || link.hub.isKnownEventType(type))
    const plan = planSurface(this.surfaceState, this.log, candidate)
    if (!published) {
      this.commit(candidate, plan)
      return candidate
    }
    link.appending = true
    try {
      const hub = link.hub
      const checks = hub.checks()
      let callbacks: (() => void)[] | undefined
      for (let i = 0; i < checks.length; i++) {
        const callback = checks[i]!(this, candidate)
        if (typeof callback === 'function') (callbacks ??= []).push(callback)
      }
      const listeners = hub.resolveEventListeners(this, candidate)
      this.commit(candidate, plan)
      if (callbacks !== undefined) {
        for (const callback of callbacks) {
          try {
            callback()
          } catch (error) {
            hub.warn(`session "${this.id}": check commit callback threw: ${printValue(error)}`)
          }
        }
      }
      if (listeners.length > 0) {
        const args = [this, candidate]
        for (let i = 0; i < listeners.length; i++) callContained(hub.failures, 'session/event', listeners[i]!, this, args)
      }
    } finally {
      link.appending = false
      if (link.detachRequested) link.hub.settle(link)
    }
    return candidate
  }

  /**
   * Steps 3 (the unknown-type half: it needs `ignorable`) to 6. Each option is read once, into locals (a getter may
   * reenter `append`): only own enumerable keys count, in `Object.keys` order, and an `undefined` value is absent.
   */
  private build(type: string, data: unknown, options: unknown, known: boolean): SessionEvent {
    let ignorable: unknown
    let surfaceOp: unknown
    let sources: unknown
    let optionProblem: string | undefined
    if (options !== undefined) {
      if (typeof options !== 'object' || options === null) {
        optionProblem = 'append options must be an object'
      } else {
        // for-in plus hasOwn: the own enumerable keys, as Object.keys, without allocating them on every append.
        for (const key in options) {
          if (!Object.hasOwn(options, key)) continue
          const value: unknown = (options as Record<string, unknown>)[key]
          if (key === 'surfaceOp') surfaceOp = value
          else if (key === 'sourceEventSeqs') sources = value
          else if (key === 'ignorable') ignorable = value
          else optionProblem ??= `unknown append option "${key}"`
        }
      }
    }
    if (!known && ignorable !== true) throw unknownEventTypeError(type)
    if (optionProblem !== undefined) throw invalidEvent(type, optionProblem)
    if (ignorable !== undefined) {
      if (ignorable !== true) throw invalidEvent(type, 'ignorable must be true when present')
      if (isSurfaceType(type)) throw invalidEvent(type, 'surface events cannot be ignorable')
    }
    const value = snapshotFrozen(data, 2)
    if (value === NOT_JSON) throw new SessionError('NOT_JSON', `event "${type}": data is not lossless JSON`)
    if (surfaceOp !== undefined && surfaceOp !== 'append') surfaceOp = snapshotMeta(type, surfaceOp)
    if (sources !== undefined) sources = snapshotMeta(type, sources)
    const log = this.log
    const seq = log.length
    const time = nextEventTime(log)
    // One literal per shape keeps the stored events on a few hidden classes (key order as §2.2).
    let event: object
    if (surfaceOp === undefined && sources === undefined) {
      event = ignorable === undefined ? { type, seq, time, data: value } : { type, seq, time, data: value, ignorable: true }
    } else if (sources === undefined) {
      event = ignorable === undefined ? { type, seq, time, data: value, surfaceOp }
        : { type, seq, time, data: value, ignorable: true, surfaceOp }
    } else if (surfaceOp === undefined) {
      event = ignorable === undefined ? { type, seq, time, data: value, sourceEventSeqs: sources }
        : { type, seq, time, data: value, ignorable: true, sourceEventSeqs: sources }
    } else {
      event = ignorable === undefined ? { type, seq, time, data: value, surfaceOp, sourceEventSeqs: sources }
        : { type, seq, time, data: value, ignorable: true, surfaceOp, sourceEventSeqs: sources }
    }
    Object.freeze(event)
    const problem = payloadProblem(type, value)
    if (problem !== undefined) throw new SessionError('INVALID_EVENT', problem)
    return event as SessionEvent
  }

  /** Step 9: push, apply the surface plan, drop the view and index the event. Cannot fail. */
  private commit(event: SessionEvent, plan: SurfacePlan | null): void {
    this.log.push(event)
    if (plan !== null) this.surfaceState.apply(plan)
    this.view = undefined
    this.index.add(event)
  }

  /**
   * @internal The index of the first seed event (below `firstLiveSeq`) that is not ignorable and whose type `isKnown`
   * rejects, or -1 (01 §6.1 step 4); O(distinct types), from the log index.
   */
  firstUnknownSeedEvent(isKnown: (type: string) => boolean): number {
    return this.index.firstUnknownRequired(this.firstLiveSeq, isKnown)
  }

  /**
   * @internal What a live fork at `b` (a seq of this log) takes over: one slice of the log, the surface after `b` when
   * no replace happened (else the child folds), and the log index up to `b`; no walk of the events.
   */
  forkPrefix(b: number): ForkPrefix {
    return { events: this.log.prefix(b + 1), surface: this.surfaceState.prefix(b), index: this.index.prefix(b) }
  }
}

function snapshotMeta(type: string, value: unknown): unknown {
  const copy = snapshotFrozen(value, 2)
  if (copy === NOT_JSON) throw new SessionError('NOT_JSON', `event "${type}": surface metadata is not lossless JSON`)
  return copy
}
