/**
 * The live entries of one store (spec 01 §6.1–§6.6): ids, the enter → announce → detach lifecycle with its deferral
 * while a session announces or appends, publication as one effect, and `flush`.
 */

import { randomUUID } from 'node:crypto'
import type { Context } from '@deepseek-ai/cordis'
import { containRejection, emitContained, type Listener } from './contain.ts'
import type { StoreEvents } from './cordis-fast-path.ts'
import { SessionError } from './errors.ts'
import type { StoreHub } from './hub.ts'
import type { Session, SessionLink } from './session.ts'
import type { SessionId } from './types.ts'

/** One entered session: its link, plus the fields only the store reads. */
export interface Entry extends SessionLink {
  readonly hub: StoreHub
  readonly session: Session
  removed: boolean
}

const flushed = (): boolean => true

function notLive(id: string): SessionError {
  return new SessionError('SESSION_NOT_LIVE', `session "${id}" is not live in this store`)
}

/** The entered sessions of one store, by id, and their lifecycle. */
export class LiveEntries {
  readonly entries = new Map<string, Entry>()

  constructor(private readonly hub: StoreHub, private readonly events: StoreEvents) {}

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

  /** §6.5: one effect on `ctx`'s fiber that enters and then announces; a failure rolls the entry back. */
  publish(ctx: Context, session: Session): Session {
    const live = this
    ctx.effect(function* () {
      yield live.enter(session)
      live.announce(session)
    }, 'sessions.create()')
    return session
  }

  enter(session: Session): () => void {
    if (session.link !== undefined) {
      throw new SessionError('ALREADY_ATTACHED', `session "${session.id}" is already attached to a store`)
    }
    this.assertFree(session.id)
    const entry: Entry = {
      hub: this.hub, session, announced: false, announcing: false, appending: false, detachRequested: false, removed: false,
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
        containRejection(this.hub.failures, 'session/created', listener(session), session)
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

  /** Remove `entry` now (idempotent); an announced session gets `session/disposed`, each listener contained. */
  detach(entry: Entry): void {
    if (entry.removed) return
    entry.removed = true
    entry.detachRequested = false
    const { session } = entry
    if (this.entries.get(session.id) === entry) this.entries.delete(session.id)
    if (session.link === entry) session.link = undefined
    if (entry.announced) this.emitDisposed(session)
  }

  private emitDisposed(session: Session): void {
    emitContained(this.events.bus, this.hub.failures, 'session/disposed', [session], session)
  }

  flush(session: Session): Promise<boolean> {
    try {
      if (this.liveEntry(session) === undefined) throw notLive(session.id)
      const listeners = this.events.bus.dispatch('emit', [session, 'session/flush', session]) as Listener[]
      // One listener (a persistence plugin, the usual case): its settlement is the flush's, nothing to gather.
      if (listeners.length === 1) return Promise.resolve(listeners[0]!(session)).then(flushed)
      return this.flushAll(session, listeners)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** Every listener concurrently; settles once all have, rethrowing the first failure in listener order. */
  private async flushAll(session: Session, listeners: readonly Listener[]): Promise<boolean> {
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
