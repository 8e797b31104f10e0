/**
 * The state and algorithms behind `ctx.sessions` (spec 01 §6, §3.1 steps 8–12): the live entries and their
 * enter/announce/detach lifecycle, the checks, the known-type registry, listener resolution and `flush`. It lives
 * on a plain object because Cordis hands callers a tracing proxy of the service, so identity must live elsewhere.
 */

import { randomUUID } from 'node:crypto'
import type { Context } from '@deepseek-ai/cordis'
import { containRejection, emitContained, type FailureSink, type Listener } from './contain.ts'
import type { StoreEvents } from './cordis-fast-path.ts'
import { printValue, SessionError } from './errors.ts'
import type { Session, SessionEventCheck, SessionHub, SessionLink } from './session.ts'
import type { SessionEvent, SessionId } from './types.ts'
import { isCoreEventType, unknownEventTypeError } from './vocabulary.ts'

/** One entered session: its link, plus the fields only the store reads. */
interface Entry extends SessionLink {
  readonly hub: StoreCore
  readonly session: Session
  removed: boolean
}

function notLive(id: string): SessionError {
  return new SessionError('SESSION_NOT_LIVE', `session "${id}" is not live in this store`)
}

/** The store's entries, registries and dispatch; one per `SessionStore`. */
export class StoreCore implements SessionHub {
  readonly entries = new Map<string, Entry>()
  private checkList: readonly SessionEventCheck[] = []
  private readonly registered = new Map<string, number>()
  private readonly logger: { warn(format: string, ...args: unknown[]): void }
  /** Logs a contained listener failure as `session "<id>": <event> <failure>: <error>` (01 §3.1 step 11, §6.4). */
  readonly failures: FailureSink = (event, failure, error, session) => {
    this.warn(`session "${(session as Session).id}": ${event} ${failure}: ${printValue(error)}`)
  }
  /** The last core type looked up (core types never stop being known): a run of them skips the set lookup. */
  private lastCoreType = 'turn/start'

  constructor(ctx: Context, private readonly events: StoreEvents) {
    this.logger = ctx.logger('sessions')
  }

  isKnownEventType(type: string): boolean {
    if (type === this.lastCoreType) return true
    if (isCoreEventType(type)) {
      this.lastCoreType = type
      return true
    }
    return this.registered.has(type)
  }

  checks(): readonly SessionEventCheck[] {
    return this.checkList
  }

  /** The `session/event` listeners for one append (see `cordis-fast-path.ts`); called with `this = session`. */
  resolveEventListeners(session: Session, event: SessionEvent): readonly Listener[] {
    return this.events.sessionEventListeners(session, event)
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

  /** A fresh UUID that is not live (§6.1 step 1). */
  mintId(): SessionId {
    let id: string
    do id = randomUUID()
    while (this.entries.has(id))
    return id as SessionId
  }

  /** @throws SessionError `SESSION_ALREADY_EXISTS` when `id` is live (§6.1 step 2, §6.2 step 2). */
  assertFree(id: string): void {
    if (this.entries.has(id)) throw new SessionError('SESSION_ALREADY_EXISTS', `session "${id}" already exists`)
  }

  /**
   * §6.1 step 4 over the seed of a freshly built session.
   * @throws SessionError `UNKNOWN_EVENT_TYPE` with the seed prefix and `index`.
   */
  assertKnownSeed(session: Session): void {
    const i = session.firstUnknownSeedEvent(type => this.isKnownEventType(type))
    if (i >= 0) throw unknownEventTypeError(session.events[i]!.type, i)
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
      // A synchronous throw stops the loop and propagates (after the deferred detach); a rejection is logged.
      for (const listener of this.events.bus.dispatch('emit', [session, 'session/created', session]) as Listener[]) {
        containRejection(this.failures, 'session/created', listener(session), session)
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
    emitContained(this.events.bus, this.failures, 'session/disposed', [session], session)
  }

  async flush(session: Session): Promise<boolean> {
    if (this.liveEntry(session) === undefined) throw notLive(session.id)
    const listeners = this.events.bus.dispatch('emit', [session, 'session/flush', session]) as Listener[]
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

  /**
   * Store teardown: every remaining entry leaves, announced ones with `session/disposed`; an entry that is announcing
   * or appending leaves when that dispatch unwinds (§6.4).
   */
  detachAll(): void {
    for (const entry of [...this.entries.values()]) this.requestDetach(entry)
  }
}

