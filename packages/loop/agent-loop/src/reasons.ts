/**
 * The `turn/end` reasons the loop writes (01 §1.3 `TurnEndReasonMap`), and the state one turn shares with its
 * steps and tool runs.
 */

import type { Session, TurnEndReason } from '@logbook/session'
import type { ContextTracker } from './runtime-context.ts'
import type { LoopRuntime } from './runtime.ts'
import type { AgentCancelKind, AgentHandle, AgentOptions } from './types.ts'

/** What a turn needs from its agent. */
export interface TurnContext {
  readonly runtime: LoopRuntime
  readonly handle: AgentHandle
  readonly session: Session
  /** Read at each request: assigning new options applies from the next request on. */
  readonly options: AgentOptions
  headerLogged: boolean
  systemWarned: boolean
  /** What the model last saw of the runtime context. */
  readonly context: ContextTracker
  /** Run `append` as one of the loop's own appends (not input from another client). */
  own<T>(append: () => T): T
  /** The turn's `turn/start` is logged with this number. */
  turnStarted(turn: number): void
  /** Tool bodies of the step started (`true`) or all finished (`false`). */
  waitingForTools(waiting: boolean): void
}

/** One running turn. */
export interface TurnState {
  readonly tc: TurnContext
  readonly turn: number
  readonly signal: AbortSignal
  /** Who cancelled the turn, once it was cancelled. */
  readonly cause: () => AgentCancelKind | undefined
}

/** `{ kind: 'aborted', reason: { kind: <cause> } }`. */
export function abortedReason(state: TurnState): TurnEndReason {
  return { kind: 'aborted', reason: { kind: state.cause() ?? 'user' } }
}

/** `{ kind: 'error', error: { code, message } }`. */
export function errorReason(code: string, message: string): TurnEndReason {
  return { kind: 'error', error: { code, message } }
}
