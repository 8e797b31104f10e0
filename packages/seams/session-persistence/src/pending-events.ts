/**
 * The events a live writer has been handed by `session/event` and not yet taken into a batch (spec 02 §2.2: the
 * writer holds references to the pending deep-frozen events, never copies). It is only a cache of the session's own
 * log: a batch it does not cover exactly is read from `session.events` instead, so a missed, repeated or out-of-order
 * delivery can cost time but never change what is written.
 */
import type { Session, SessionEvent } from '@logbook/session'

/** References to the events `from … from + length − 1` in seq order, as `session/event` delivered them. */
export class PendingEvents {
  private events: SessionEvent[] = []
  /** Seq of `events[0]` (the seq the next contiguous delivery must have, when `events` is empty). */
  private from: number

  constructor(nextSeq: number) {
    this.from = nextSeq
  }

  /** Remember `event`; a delivery that does not continue the run starts a new run at it. */
  add(event: SessionEvent): void {
    if (event.seq !== this.from + this.events.length) {
      this.events = []
      this.from = event.seq
    }
    this.events.push(event)
  }

  /**
   * The events `from … to − 1` of `session` as a fresh array (the batch), and forget them and everything before
   * `to`. Served from the remembered run when it is exactly that range, else from `session.events`.
   */
  take(from: number, to: number, session: Session): SessionEvent[] {
    const run = this.events
    const exact = this.from === from && run.length === to - from
    this.events = []
    this.from = to
    return exact ? run : session.events.slice(from, to)
  }

  /** Forget every remembered event (the writer will not write again). */
  clear(): void {
    this.events = []
  }
}
