/**
 * `ctx.agents.watch(sessionId)` (spec 03 §5.6): an async iterator of a live session's committed events, fed by the
 * loop's `session/event` subscription, ending when the session leaves the store, the loop is torn down, the
 * caller's signal aborts or the consumer returns. Appends never wait for a reader, so the iterator holds at most
 * `watchBufferEvents` unread live events; one more fails it `WATCH_OVERFLOW` once the held ones are read.
 */

import type { Session, SessionEvent } from '@logbook/session'
import { AgentError } from './errors.ts'
import type { SessionFollower, SessionFollowers } from './follow.ts'
import type { WatchOptions } from './types.ts'

interface Waiter {
  resolve(result: IteratorResult<SessionEvent>): void
  reject(error: unknown): void
}

const DONE: IteratorResult<SessionEvent> = Object.freeze({ done: true, value: undefined })

/** The iterator behind `watch`. */
class SessionWatch implements SessionFollower, AsyncIterableIterator<SessionEvent> {
  private readonly held: SessionEvent[] = []
  private waiter: Waiter | undefined
  private history: number
  private readonly liveFrom: number
  private finished = false
  private failure: AgentError | undefined
  private stop: () => void = () => {}
  private readonly onAbort = (): void => this.finish()

  constructor(private readonly session: Session, private readonly limit: number, fromSeq: number | undefined, private readonly signal?: AbortSignal) {
    this.liveFrom = session.seq
    this.history = Math.min(fromSeq ?? this.liveFrom, this.liveFrom)
  }

  start(followers: SessionFollowers): this {
    if (this.signal?.aborted) {
      this.finished = true
      return this
    }
    this.stop = followers.add(this.session, this)
    this.signal?.addEventListener('abort', this.onAbort, { once: true })
    return this
  }

  event(_session: Session, event: SessionEvent): void {
    if (this.finished || this.failure !== undefined) return
    if (this.waiter !== undefined && this.history >= this.liveFrom) {
      const waiter = this.waiter
      this.waiter = undefined
      waiter.resolve({ done: false, value: event })
      return
    }
    if (this.held.length >= this.limit) {
      this.failure = new AgentError('WATCH_OVERFLOW',
        `watch of session "${this.session.id}" fell behind: more than ${this.limit} unread events; watch again with fromSeq ${event.seq}`)
      this.detach()
      return
    }
    this.held.push(event)
  }

  ended(): void {
    this.finish()
  }

  next(): Promise<IteratorResult<SessionEvent>> {
    if (this.history < this.liveFrom && !this.finished) {
      return Promise.resolve({ done: false, value: this.session.events[this.history++]! })
    }
    const event = this.finished && this.signal?.aborted ? undefined : this.held.shift()
    if (event !== undefined) return Promise.resolve({ done: false, value: event })
    if (this.failure !== undefined) {
      const failure = this.failure
      this.failure = undefined
      this.finished = true
      return Promise.reject(failure)
    }
    if (this.finished) return Promise.resolve(DONE)
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject }
    })
  }

  return(): Promise<IteratorResult<SessionEvent>> {
    this.held.length = 0
    this.failure = undefined
    this.finish()
    return Promise.resolve(DONE)
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  /** No further events: drain what is held (unless aborted), then end. */
  private finish(): void {
    if (this.finished) return
    this.finished = true
    this.detach()
    if (this.waiter !== undefined) {
      const waiter = this.waiter
      this.waiter = undefined
      waiter.resolve(DONE)
    }
  }

  private detach(): void {
    this.stop()
    this.signal?.removeEventListener('abort', this.onAbort)
    if (this.failure !== undefined && this.waiter !== undefined && this.held.length === 0) {
      const waiter = this.waiter
      this.waiter = undefined
      const failure = this.failure
      this.failure = undefined
      this.finished = true
      waiter.reject(failure)
    }
  }
}

/**
 * An iterator over `session`'s committed events (from `options.fromSeq`, else from the next commit).
 * @throws AgentError `INVALID_WATCH` for a `fromSeq` that is not a non-negative safe integer.
 */
export function watchSession(followers: SessionFollowers, session: Session, limit: number, options: WatchOptions = {}): AsyncIterableIterator<SessionEvent> {
  const { fromSeq, signal } = options
  if (fromSeq !== undefined && !(Number.isSafeInteger(fromSeq) && fromSeq >= 0)) {
    throw new AgentError('INVALID_WATCH', `invalid watch: fromSeq must be a non-negative safe integer, got ${String(fromSeq)}`)
  }
  return new SessionWatch(session, limit, fromSeq, signal).start(followers)
}
