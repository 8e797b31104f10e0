/**
 * The session store (spec 01 §1.7, §6): `ctx.sessions`. It registers live sessions, publishes them through Cordis
 * events, runs pre-commit checks and keeps the registry of known event types. Methods that register something
 * (`create`, `fork`, `addCheck`, `registerEventType`) bind it to the caller's fiber.
 */

import { randomUUID } from 'node:crypto'
import { type Context, Service } from '@deepseek-ai/cordis'
import { SessionError } from './errors.ts'
import { forkLive } from './fork.ts'
import { isValidSessionId } from './header.ts'
import { headerFromMeta } from './seed.ts'
import { describeError, isThenable, Session, type SessionEventCheck, type SessionHub, type SessionLink } from './session.ts'
import type {
  CreateSessionOptions, PrepareSessionOptions, RestoreSessionOptions, SessionEvent, SessionHeader, SessionId,
} from './types.ts'
import { CORE_SESSION_EVENT_TYPES, isValidEventTypeName } from './validate.ts'

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

const CORE_TYPES: ReadonlySet<string> = new Set(CORE_SESSION_EVENT_TYPES)

type Listener = (...args: unknown[]) => unknown
interface Dispatcher {
  dispatch(mode: string, args: unknown[]): Listener[]
  readonly _hooks: Record<string, { readonly callback: Listener; readonly global?: boolean }[] | undefined>
}
const NO_LISTENERS: readonly Listener[] = Object.freeze([])

/** One entered session: its link, plus the fields only the store reads. */
interface Entry extends SessionLink {
  readonly hub: StoreCore
  readonly session: Session
  removed: boolean
}

function notLive(id: string): SessionError {
  return new SessionError('SESSION_NOT_LIVE', `session "${id}" is not live in this store`)
}

/**
 * The store's state and algorithms, kept off the Service object: Cordis hands callers a tracing proxy of the
 * service, so identity (entries, links) must live on a plain object.
 */
class StoreCore implements SessionHub {
  readonly entries = new Map<string, Entry>()
  private checkList: readonly SessionEventCheck[] = []
  private readonly registered = new Map<string, number>()
  private readonly events: Dispatcher
  private eventListeners: readonly Listener[] = NO_LISTENERS
  private readonly logger: { warn(format: string, ...args: unknown[]): void }

  constructor(ctx: Context) {
    const events = ctx.root.events as unknown as Dispatcher
    // The unwrapped bus: dispatch resolves listeners exactly as Cordis does, without a tracing proxy per append.
    this.events = (events as unknown as Record<symbol, Dispatcher | undefined>)[Symbol.for('cordis.original')] ?? events
    this.logger = ctx.logger('sessions')
  }

  isKnownEventType(type: string): boolean {
    return CORE_TYPES.has(type) || this.registered.has(type)
  }

  checks(): readonly SessionEventCheck[] {
    return this.checkList
  }

  /**
   * Cordis dispatch, with a cheap path for the append hot loop: while nothing listens to `internal/dispatch`,
   * dispatch would only return every `session/event` hook (a session carries no context filter), so the callbacks
   * are taken straight from the hook list, cached until that list changes. Callers invoke them with `this = session`.
   */
  resolveEventListeners(session: Session, event: SessionEvent): readonly Listener[] {
    const hooks = this.events._hooks
    const observers = hooks['internal/dispatch']
    if (observers !== undefined && observers.length > 0) {
      return this.events.dispatch('emit', [session, 'session/event', session, event])
    }
    const list = hooks['session/event']
    if (list === undefined || list.length === 0) return NO_LISTENERS
    const cached = this.eventListeners
    let same = cached.length === list.length
    for (let i = 0; same && i < list.length; i++) same = cached[i] === list[i]!.callback
    if (same) return cached
    return this.eventListeners = Object.freeze(list.map(hook => hook.callback))
  }

  warn(text: string): void {
    this.logger.warn('%s', text)
  }

  settle(link: SessionLink): void {
    this.detach(link as Entry)
  }

  addCheck(check: SessionEventCheck): () => void {
    this.checkList = [...this.checkList, check]
    return () => {
      const index = this.checkList.indexOf(check)
      if (index >= 0) this.checkList = this.checkList.toSpliced(index, 1)
    }
  }

  register(type: string): () => void {
    this.registered.set(type, (this.registered.get(type) ?? 0) + 1)
    return () => {
      const count = this.registered.get(type)! - 1
      if (count === 0) this.registered.delete(type)
      else this.registered.set(type, count)
    }
  }

  liveEntry(session: Session): Entry | undefined {
    const entry = this.entries.get(session.id)
    return entry !== undefined && entry.session === session ? entry : undefined
  }

  mintId(): SessionId {
    let id: string
    do id = randomUUID()
    while (this.entries.has(id))
    return id as SessionId
  }

  assertFree(id: string): void {
    if (this.entries.has(id)) throw new SessionError('SESSION_ALREADY_EXISTS', `session "${id}" already exists`)
  }

  /** §6.1 step 4 over the seed of a freshly built session. */
  assertKnownSeed(session: Session): void {
    const i = session.findSeedEvent(event => event.ignorable !== true && !this.isKnownEventType(event.type))
    if (i < 0) return
    throw new SessionError('UNKNOWN_EVENT_TYPE', `seed event at index ${i}: event type "${session.events[i]!.type}" is not `
      + 'registered with the session store; register it or mark the event ignorable', i)
  }

  /** §6.5: one effect on `ctx`'s fiber that enters and then announces; a failure rolls the entry back. */
  publish(ctx: Context, session: Session): Session {
    const core = this
    ctx.effect(function* () {
      yield core.enter(session)
      core.announce(session)
    }, 'sessions.create()')
    return session
  }

  enter(session: Session): () => void {
    if (session.link !== undefined) {
      throw new SessionError('ALREADY_ATTACHED', `session "${session.id}" is already attached to a store`)
    }
    this.assertFree(session.id)
    const entry: Entry = {
      hub: this, session, announced: false, announcing: false, appending: false, detachRequested: false, removed: false,
    }
    this.entries.set(session.id, entry)
    session.link = entry
    return () => this.requestDetach(entry)
  }

  announce(session: Session): void {
    const entry = this.liveEntry(session)
    if (entry === undefined) throw notLive(session.id)
    if (entry.announced) throw new SessionError('ALREADY_ANNOUNCED', `session "${session.id}" was already announced`)
    entry.announced = true
    entry.announcing = true
    try {
      for (const listener of this.events.dispatch('emit', [session, 'session/created', session])) {
        const result = listener(session)
        if (isThenable(result)) {
          result.then(undefined, (error: unknown) => {
            this.warn(`session "${session.id}": session/created listener rejected: ${describeError(error)}`)
          })
        }
      }
    } finally {
      entry.announcing = false
      if (entry.detachRequested) this.detach(entry)
    }
  }

  /** §6.4: deferred while announcing or appending, else immediate; idempotent and bound to its entry. */
  requestDetach(entry: Entry): void {
    if (entry.removed) return
    if (entry.announcing || entry.appending) entry.detachRequested = true
    else this.detach(entry)
  }

  private detach(entry: Entry): void {
    if (entry.removed) return
    entry.removed = true
    entry.detachRequested = false
    const { session } = entry
    if (this.entries.get(session.id) === entry) this.entries.delete(session.id)
    if (session.link === entry) session.link = undefined
    if (entry.announced) this.emitDisposed(session)
  }

  private emitDisposed(session: Session): void {
    let listeners: Listener[]
    try {
      listeners = this.events.dispatch('emit', [session, 'session/disposed', session])
    } catch (error) {
      this.warn(`session "${session.id}": session/disposed dispatch failed: ${describeError(error)}`)
      return
    }
    for (const listener of listeners) {
      try {
        const result = listener(session)
        if (isThenable(result)) {
          result.then(undefined, (error: unknown) => {
            this.warn(`session "${session.id}": session/disposed listener rejected: ${describeError(error)}`)
          })
        }
      } catch (error) {
        this.warn(`session "${session.id}": session/disposed listener threw: ${describeError(error)}`)
      }
    }
  }

  async flush(session: Session): Promise<boolean> {
    if (this.liveEntry(session) === undefined) throw notLive(session.id)
    const listeners = this.events.dispatch('emit', [session, 'session/flush', session])
    const failures: { error: unknown }[] = []
    const runs = listeners.map((listener, index) => {
      try {
        return Promise.resolve(listener(session)).then(undefined, (error: unknown) => { failures[index] = { error } })
      } catch (error) {
        failures[index] = { error }
        return undefined
      }
    })
    await Promise.all(runs)
    for (const failure of failures) if (failure !== undefined) throw failure.error
    return listeners.length > 0
  }

  /** Store teardown: every remaining entry leaves, announced ones with `session/disposed`. */
  detachAll(): void {
    for (const entry of [...this.entries.values()]) this.detach(entry)
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
  /** @internal The state, on a plain object (see `StoreCore`). */
  readonly core: StoreCore

  constructor(ctx: Context) {
    super(ctx, 'sessions')
    const core = this.core = new StoreCore(ctx)
    ctx.effect(() => () => core.detachAll(), 'sessions.detachAll')
  }

  /**
   * Build an unregistered, unpublished session (§6.1): restore iff `options.eventState` is present.
   * @throws SessionError `INVALID_SESSION_ID`, `SESSION_ALREADY_EXISTS`, `INVALID_HEADER`, any construction
   * error, and `UNKNOWN_EVENT_TYPE` (seed prefix) for a seed type that is neither known nor ignorable.
   */
  prepare(id?: SessionId, options?: PrepareSessionOptions): Session {
    const core = this.core
    if (id !== undefined && !isValidSessionId(id)) throw new SessionError('INVALID_SESSION_ID', `invalid session id "${String(id)}"`)
    const sessionId = id ?? core.mintId()
    core.assertFree(sessionId)
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
    core.assertKnownSeed(session)
    return session
  }

  /**
   * `prepare`, then one effect on the caller's fiber that enters the session and then announces it (§6.5). A
   * throwing `session/created` listener rolls everything back; disposing the fiber detaches the session.
   * @throws SessionError as `prepare` and `enter`; a `session/created` listener's error unchanged.
   */
  create(id?: SessionId, options?: CreateSessionOptions): Session {
    return this.core.publish(this.ctx, this.prepare(id, options))
  }

  /**
   * @internal Enter and announce a session built outside `prepare` (a fork child) after checking its seed types
   * (§6.1 step 4), in one effect on the caller's fiber (§6.5).
   */
  adopt(session: Session): Session {
    this.core.assertKnownSeed(session)
    return this.core.publish(this.ctx, session)
  }

  /**
   * Register an unannounced entry silently and return its idempotent `detach` (§6.2).
   * @throws SessionError `ALREADY_ATTACHED`, `SESSION_ALREADY_EXISTS`.
   */
  enter(session: Session): () => void {
    return this.core.enter(session)
  }

  /**
   * Publish an entered session: dispatch `session/created` (the catch-up point) with `this` bound to it (§6.3).
   * @throws SessionError `SESSION_NOT_LIVE`, `ALREADY_ANNOUNCED`; a `session/created` listener's error unchanged.
   */
  announce(session: Session): void {
    this.core.announce(session)
  }

  /** The live session with this id, if any. */
  get(id: SessionId): Session | undefined {
    return this.core.entries.get(id)?.session
  }

  /** The live sessions in entry order. */
  list(): Session[] {
    return Array.from(this.core.entries.values(), entry => entry.session)
  }

  /** @internal True iff `session` is the live object for its id in this store. */
  isLiveObject(session: Session): boolean {
    return this.core.liveEntry(session) !== undefined
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
    return this.core.flush(session)
  }

  /**
   * Register a pre-commit check on the caller's fiber (§3.4); returns its disposer.
   */
  addCheck(check: SessionEventCheck): () => void {
    const core = this.core
    return this.ctx.effect(() => core.addCheck(check), 'sessions.addCheck()')
  }

  /**
   * Make `type` known on the caller's fiber (reference-counted, §2.4); returns its disposer. Core types: no effect.
   * @throws SessionError `INVALID_EVENT` for an invalid type name.
   */
  registerEventType(type: string): () => void {
    if (!isValidEventTypeName(type)) throw new SessionError('INVALID_EVENT', `event type "${describeError(type)}" is invalid`)
    if (CORE_TYPES.has(type)) return () => {}
    const core = this.core
    return this.ctx.effect(() => core.register(type), 'sessions.registerEventType()')
  }

  /** True iff `type` is a core type or currently registered. */
  isKnownEventType(type: string): boolean {
    return this.core.isKnownEventType(type)
  }
}

export type { SessionEventCheck }
