/**
 * The store's hub (`SessionHub`: what an entered session talks to, spec 01 §3.1 steps 8–12) with the registries
 * behind `ctx.sessions` (checks, known event types) and the live entries (`live-entries.ts`). It lives on a plain
 * object because Cordis hands callers a tracing proxy of the service, so identity must live elsewhere.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { FailureSink, Listener } from './contain.ts'
import type { StoreEvents } from './cordis-fast-path.ts'
import { printValue } from './errors.ts'
import { type Entry, LiveEntries } from './live-entries.ts'
import type { Session, SessionEventCheck, SessionHub, SessionLink } from './session.ts'
import type { SessionEvent } from './types.ts'
import { isCoreEventType, unknownEventTypeError } from './vocabulary.ts'

/** What entered sessions reach their store through, and the store's registries; one per `SessionStore`. */
export class StoreHub implements SessionHub {
  /** The entered sessions and their lifecycle. */
  readonly live: LiveEntries
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
    this.live = new LiveEntries(this, events)
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

  /**
   * §6.1 step 4 over the seed of a freshly built session.
   * @throws SessionError `UNKNOWN_EVENT_TYPE` with the seed prefix and `index`.
   */
  assertKnownSeed(session: Session): void {
    const i = session.firstUnknownSeedEvent(type => this.isKnownEventType(type))
    if (i >= 0) throw unknownEventTypeError(session.events[i]!.type, i)
  }

  /** Run a detach that was deferred while the session was announcing or appending. */
  settle(link: SessionLink): void {
    this.live.detach(link as Entry)
  }
}
