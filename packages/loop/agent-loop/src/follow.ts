/**
 * The loop's one `session/event` subscription (spec 03 §5.6): committed events of a session are handed to the
 * followers of that session object — its agent (runtime context, input) and any `watch` iterators — and
 * `session/disposed` ends them. Nothing polls: followers learn every change from the log as it commits.
 */

import type { Context } from '@deepseek-ai/cordis'
import { messageOf, type Session, type SessionEvent } from '@logbook/session'

/** Something that follows one live session's committed events. */
export interface SessionFollower {
  /** One committed event of the session, in commit order. */
  event(session: Session, event: SessionEvent): void
  /** The session left the store, or the loop is being torn down; no further event comes. */
  ended(): void
}

/** The followers of every session, keyed by the session object (an id may be reused after a detach). */
export class SessionFollowers {
  private readonly bySession = new Map<Session, Set<SessionFollower>>()

  constructor(private readonly warn: (text: string) => void) {}

  /** Follow `session`; the returned function stops following (idempotent). */
  add(session: Session, follower: SessionFollower): () => void {
    let set = this.bySession.get(session)
    if (set === undefined) this.bySession.set(session, set = new Set())
    set.add(follower)
    return () => {
      const current = this.bySession.get(session)
      if (current === undefined || !current.delete(follower)) return
      if (current.size === 0) this.bySession.delete(session)
    }
  }

  /**
   * Listen to `session/event` and `session/disposed` on `ctx`; returns the listeners' disposers, which the loop yields
   * from its one teardown effect so that they outlive the agents' disposal.
   */
  listen(ctx: Context): (() => unknown)[] {
    const onEvent = ctx.on('session/event', (session, event) => this.dispatch(session, event))
    const onDisposed = ctx.on('session/disposed', session => this.end(session))
    return [onEvent, onDisposed]
  }

  /** End every follower of every session (loop teardown). */
  endAll(): void {
    for (const session of [...this.bySession.keys()]) this.end(session)
  }

  private dispatch(session: Session, event: SessionEvent): void {
    const set = this.bySession.get(session)
    if (set === undefined) return
    for (const follower of [...set]) {
      try {
        follower.event(session, event)
      } catch (error) {
        this.warn(`session "${session.id}": a follower of seq ${event.seq} threw: ${messageOf(error)}`)
      }
    }
  }

  private end(session: Session): void {
    const set = this.bySession.get(session)
    if (set === undefined) return
    this.bySession.delete(session)
    for (const follower of set) {
      try {
        follower.ended()
      } catch (error) {
        this.warn(`session "${session.id}": a follower's end threw: ${messageOf(error)}`)
      }
    }
  }
}
