/**
 * The session store (spec 01 §1.7, §6): `ctx.sessions`, a Cordis Service. It registers live sessions, publishes
 * them through Cordis events, runs pre-commit checks and keeps the registry of known event types; the state and
 * algorithms are in `hub.ts`. Methods that register something (`create`, `fork`, `addCheck`,
 * `registerEventType`) bind it to the caller's fiber.
 */

import { type Context, Service } from '@deepseek-ai/cordis'
import { forkLive } from './fork.ts'
import { assertSessionId } from './header.ts'
import { type StoreEvents, storeEvents } from './cordis-fast-path.ts'
import { headerFromMeta } from './seed.ts'
import { Session, type SessionEventCheck } from './session.ts'
import { StoreHub } from './hub.ts'
import type {
  CreateSessionOptions, PrepareSessionOptions, RestoreSessionOptions, SessionEvent, SessionHeader, SessionId,
} from './types.ts'
import { assertEventTypeName, isCoreEventType } from './vocabulary.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessions: SessionStore
  }
  interface Events {
    'session/created'(this: Session, session: Session): void
    'session/event'(this: Session, session: Session, event: SessionEvent): void
    'session/flush'(this: Session, session: Session): void | Promise<void>
    'session/disposed'(this: Session, session: Session): void
  }
}

function isRestore(options: PrepareSessionOptions): options is RestoreSessionOptions {
  return (options as RestoreSessionOptions).eventState !== undefined
}

/**
 * `ctx.sessions`: the registry of live sessions and their publication through `session/created`, `session/event`,
 * `session/flush` and `session/disposed`. Disposing the store detaches every remaining session.
 */
export default class SessionStore extends Service {
  /** @internal The state, on a plain object (see `StoreHub`). */
  readonly hub: StoreHub

  constructor(ctx: Context) {
    super(ctx, 'sessions')
    let events!: StoreEvents
    ctx.effect(() => {
      events = storeEvents(ctx)
      return () => events.dispose()
    }, 'sessions.listeners')
    const hub = this.hub = new StoreHub(ctx, events)
    if (events.fallback !== undefined) {
      ctx.logger('sessions').debug('session/event listeners resolve through ctx.events.dispatch: %s', events.fallback)
    }
    ctx.effect(() => () => hub.live.detachAll(), 'sessions.detachAll')
  }

  /**
   * Build an unregistered, unpublished session (§6.1): restore iff `options.eventState` is present.
   * @throws SessionError `INVALID_SESSION_ID`, `SESSION_ALREADY_EXISTS`, `INVALID_HEADER`, any construction
   * error, and `UNKNOWN_EVENT_TYPE` (seed prefix) for a seed type that is neither known nor ignorable.
   */
  prepare(id?: SessionId, options?: PrepareSessionOptions): Session {
    const hub = this.hub
    if (id !== undefined) assertSessionId(id)
    const sessionId = id ?? hub.live.mintId()
    hub.live.assertFree(sessionId)
    let session: Session
    if (options !== undefined && isRestore(options)) {
      const { seed, meta, inheritedEventCount, eventState } = options
      session = Session.fromRestore(sessionId, { seed, header: meta, inheritedEventCount, eventState })
    } else {
      const header = headerFromMeta(sessionId, options?.meta)
      const init: { seed?: readonly SessionEvent[]; header: SessionHeader; inheritedEventCount?: number } = { header }
      if (options?.seed !== undefined) init.seed = options.seed
      if (options?.inheritedEventCount !== undefined) init.inheritedEventCount = options.inheritedEventCount
      session = Session.create(sessionId, init)
    }
    hub.assertKnownSeed(session)
    return session
  }

  /**
   * `prepare`, then one effect on the caller's fiber that enters the session and then announces it (§6.5). A
   * throwing `session/created` listener rolls everything back; disposing the fiber detaches the session.
   * @throws SessionError as `prepare` and `enter`; a `session/created` listener's error unchanged.
   */
  create(id?: SessionId, options?: CreateSessionOptions): Session {
    return this.hub.live.publish(this.ctx, this.prepare(id, options))
  }

  /**
   * @internal Enter and announce a session built outside `prepare` (a fork child) after checking its seed types
   * (§6.1 step 4), in one effect on the caller's fiber (§6.5).
   */
  adopt(session: Session): Session {
    this.hub.assertKnownSeed(session)
    return this.hub.live.publish(this.ctx, session)
  }

  /**
   * Register an unannounced entry silently and return its idempotent `detach` (§6.2).
   * @throws SessionError `ALREADY_ATTACHED`, `SESSION_ALREADY_EXISTS`.
   */
  enter(session: Session): () => void {
    return this.hub.live.enter(session)
  }

  /**
   * Publish an entered session: dispatch `session/created` (the catch-up point) with `this` bound to it (§6.3).
   * @throws SessionError `SESSION_NOT_LIVE`, `ALREADY_ANNOUNCED`; a `session/created` listener's error unchanged.
   */
  announce(session: Session): void {
    this.hub.live.announce(session)
  }

  /** The live session with this id, if any. */
  get(id: SessionId): Session | undefined {
    return this.hub.live.entries.get(id)?.session
  }

  /** The live sessions in entry order. */
  list(): Session[] {
    return Array.from(this.hub.live.entries.values(), entry => entry.session)
  }

  /** @internal True iff `session` is the live object for its id in this store. */
  isLiveObject(session: Session): boolean {
    return this.hub.live.liveEntry(session) !== undefined
  }

  /**
   * Fork a live session at `boundary` into an announced child bound to the caller's fiber (§7).
   * @throws SessionError `INVALID_SESSION_ID`; SessionForkError `SESSION_ALREADY_EXISTS`, `SESSION_NOT_FOUND`,
   * `SESSION_NOT_LIVE`, `INVALID_BOUNDARY`.
   */
  fork(source: Session | SessionId, boundary?: number, childId?: SessionId): Session {
    return forkLive(this, source, boundary, childId)
  }

  /**
   * Run every `session/flush` listener concurrently and settle once all have; resolves to whether any ran, or
   * rejects with the earliest-registered listener's failure (§6.6).
   * @throws SessionError `SESSION_NOT_LIVE` (as a rejection).
   */
  flush(session: Session): Promise<boolean> {
    return this.hub.live.flush(session)
  }

  /**
   * Register a pre-commit check on the caller's fiber (§3.4); returns its disposer.
   */
  addCheck(check: SessionEventCheck): () => void {
    const hub = this.hub
    return this.ctx.effect(() => hub.addCheck(check), 'sessions.addCheck()')
  }

  /**
   * Make `type` known on the caller's fiber (reference-counted, §2.4); returns its disposer. Core types: no effect.
   * @throws SessionError `INVALID_EVENT` for an invalid type name.
   */
  registerEventType(type: string): () => void {
    assertEventTypeName(type)
    if (isCoreEventType(type)) return () => {}
    const hub = this.hub
    return this.ctx.effect(() => hub.register(type), 'sessions.registerEventType()')
  }

  /** True iff `type` is a core type or currently registered. */
  isKnownEventType(type: string): boolean {
    return this.hub.isKnownEventType(type)
  }
}

export type { SessionEventCheck }
