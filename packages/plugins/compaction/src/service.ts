/**
 * The abstract compaction service (spec 03 §2, ctx key `compaction`): the seam's primitives bound to a Cordis
 * context. Implementations (`@logbook/compaction-basic`) subclass it with a summariser, triggers and a pruner.
 */

import { type Context, Service } from '@deepseek-ai/cordis'
import type { AgentHandle } from '@logbook/agent-loop'
import { tokenEstimatorOf, type TokenEstimator } from '@logbook/llm'
import type { Session, ToolSchema } from '@logbook/session'
import { balancedAfter, balancedBefore, cutPoints } from './balance.ts'
import { entryState } from './entry-state.ts'
import { COMPACTION_EVENT_TYPES } from './events.ts'
import { observeEvent } from './log.ts'
import { measureSession } from './measure.ts'
import { runRegion } from './region.ts'
import { selectSpan } from './select.ts'
import type {
  CompactionResult, CompactRegionOptions, CompactNowOptions, EntryState,
  Measurement, RegionOptions, Span,
} from './types.ts'

/** Register the compaction event types on the caller's fiber; each registration ends with that fiber. */
export function registerCompactionEventTypes(ctx: Context): void {
  for (const type of COMPACTION_EVENT_TYPES) ctx.sessions.registerEventType(type)
}

/**
 * The compaction service. Constructing it registers the compaction event types for as long as it lives; every
 * method is the seam's free function with this context's estimator and session store.
 */
export abstract class CompactionService extends Service {
  static inject = ['sessions']

  constructor(ctx: Context) {
    super(ctx, 'compaction')
    registerCompactionEventTypes(ctx)
    // Keeps the seam's log index of sessions it has read current without Proxy reads (see log.ts).
    ctx.on('session/event', (session, event) => observeEvent(session, event))
  }

  /** The token estimator in force now: the `tokenEstimator` service when provided, else the default. */
  estimator(): TokenEstimator {
    return tokenEstimatorOf(this.ctx)
  }

  /** §2.2 entry state: the lock (with its end-seed exemption) and the open turn. */
  entryState(session: Session): EntryState {
    return entryState(session)
  }

  /** §2.4 measurement with the estimator in force. */
  measure(session: Session, tools?: readonly ToolSchema[]): Measurement {
    return measureSession(session, this.estimator(), tools)
  }

  /** §2.5 span selection. @throws CompactionError `CORRUPT_SURFACE`. */
  selectSpan(session: Session, measurement: Measurement, retainTokens: number): Span | null {
    return selectSpan(session, measurement, retainTokens)
  }

  /** §2.3 balance of the cut before a node. @throws CompactionError `INVALID_SPAN`, `CORRUPT_SURFACE`. */
  balancedBefore(session: Session, seq: number): boolean {
    return balancedBefore(session, seq)
  }

  /** §2.3 balance of the cut after a node. @throws CompactionError `INVALID_SPAN`, `CORRUPT_SURFACE`. */
  balancedAfter(session: Session, seq: number): boolean {
    return balancedAfter(session, seq)
  }

  /** §2.3 all N+1 cut points. @throws CompactionError `CORRUPT_SURFACE`. */
  cutPoints(session: Session): boolean[] {
    return cutPoints(session)
  }


  /**
   * §2.6 the region transaction with this context's estimator; `flushAfter` flushes through `ctx.sessions`.
   * @throws CompactionError with any §2.6 code.
   */
  runRegion(options: RegionOptions): Promise<CompactionResult> {
    const ctx = this.ctx
    return runRegion({ estimator: this.estimator(), flush: session => ctx.sessions.flush(session) }, options)
  }

  /**
   * §2.8 manual compaction of an idle agent's session; `null` when nothing is worth compacting.
   * @throws ManualCompactionError
   */
  abstract compactNow(agent: AgentHandle, options?: CompactNowOptions): Promise<CompactionResult | null>

  /**
   * §2.8 explicit compaction of a chosen span inside the agent's open turn.
   * @throws CompactionError
   */
  abstract compactRegion(agent: AgentHandle, options: CompactRegionOptions): Promise<CompactionResult>
}
