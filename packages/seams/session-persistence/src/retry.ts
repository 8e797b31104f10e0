/**
 * The retry schedule of one live writer and its logging (spec 02 §2.4): after the k-th consecutive retryable failure
 * the next attempt runs `retryInitialDelayMs · 2^(k−1)` later, capped at `retryMaxDelayMs`; a streak warns for its
 * first failure, then at most once per `retryMaxDelayMs`, and its end is logged at info.
 */
import { about } from './errors.ts'
import { describe } from './util.ts'

/** The delays the schedule uses (validated config). */
export interface RetryDelays {
  readonly retryInitial: number
  readonly retryMax: number
}

/** Where the schedule logs. */
export interface RetryLogger {
  info(text: string): void
  warn(text: string): void
}

/** Consecutive failures of one writer. */
export class RetryStreak {
  private failures = 0
  private lastWarnAt = -Infinity

  constructor(private readonly id: string, private readonly delays: RetryDelays, private readonly logger: RetryLogger) {}

  /** Consecutive failures so far (0 after a success). */
  get length(): number {
    return this.failures
  }

  /**
   * Count a retryable failure and log it when due; returns the delay before the next attempt.
   * `retrying: false` (plugin teardown) only changes the wording.
   */
  failed(error: unknown, retrying: boolean): number {
    this.failures += 1
    const now = Date.now()
    const { retryInitial, retryMax } = this.delays
    if (this.failures === 1 || now - this.lastWarnAt >= retryMax) {
      this.lastWarnAt = now
      const next = retrying ? 'retrying' : 'not retried (plugin teardown)'
      this.logger.warn(`${about(this.id)}write failed (attempt ${this.failures}), ${next}: ${describe(error)}`)
    }
    return Math.min(retryInitial * 2 ** (this.failures - 1), retryMax)
  }

  /** A write succeeded: the streak ends (logged at info when there was one). */
  succeeded(): void {
    if (this.failures > 0) this.logger.info(`${about(this.id)}write succeeded after ${this.failures} failed attempt(s)`)
    this.failures = 0
  }
}
