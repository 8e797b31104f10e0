/**
 * Background lease renewal: while a lease is held, its `expires_at` is pushed `leaseDurationMs` past the server's
 * clock every third of that duration. A renewal that finds the lease gone stops (the fence refuses the holder's next
 * write); one that fails on the network is retried at the next tick. Timers are `unref`ed.
 */
import { renewLease, type LeaseToken } from './lease.ts'
import type { PgStore } from './store.ts'

/** The renewal timers of one backend instance. */
export class LeaseRenewals {
  private readonly timers = new Map<LeaseToken, ReturnType<typeof setInterval>>()

  constructor(private readonly store: PgStore, private readonly durationMs: number) {}

  /** Start renewing `token`. */
  start(token: LeaseToken): void {
    if (this.timers.has(token)) return
    const timer = setInterval(() => {
      renewLease(this.store, token, this.durationMs).then(
        (held) => {
          if (!held) this.stop(token)
        },
        () => {}, // a network fault: the next tick tries again, and the lease lasts until then
      )
    }, Math.max(1, Math.floor(this.durationMs / 3)))
    timer.unref()
    this.timers.set(token, timer)
  }

  /** Stop renewing `token` (released or lost). */
  stop(token: LeaseToken): void {
    const timer = this.timers.get(token)
    if (timer === undefined) return
    clearInterval(timer)
    this.timers.delete(token)
  }

  /** Whether `token` is still being renewed. */
  has(token: LeaseToken): boolean {
    return this.timers.has(token)
  }

  /** Stop every timer (teardown). */
  stopAll(): void {
    for (const timer of this.timers.values()) clearInterval(timer)
    this.timers.clear()
  }
}
