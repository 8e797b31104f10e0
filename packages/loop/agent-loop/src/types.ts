/**
 * Types of the harness loop (spec 03 §5, §7): agent options, the handle, the inputs of create / resume / fork,
 * the hook payloads and the plugin config. This file holds types only.
 */

import type {
  AgentCancelCause, ImageBlock, LlmFailure, RequestConfig, Session, SessionEvent, SessionId, SessionMeta, TextBlock, ToolSchema,
  TurnEndReason, UserMessageSource,
} from '@logbook/session'

/** What an agent requests with; no `tools` means every registered tool. */
export interface AgentOptions {
  readonly provider: string
  readonly model: string
  readonly maxTokens?: number
  /** Becomes surface node 0 (a `system/message`) on an empty surface; a change replaces node 0 at a turn start. */
  readonly system?: string
  readonly tools?: readonly string[]
}

/**
 * Where an agent stands; changes are announced on `agent/status`. `waiting-for-tool` is a running turn whose step
 * waits for tool bodies.
 */
export type AgentStatus = 'idle' | 'running' | 'waiting-for-tool' | 'maintenance' | 'disposed'

/** Who cancelled: the user, a parent agent, or disposal. */
export type AgentCancelKind = AgentCancelCause['kind']

/** How a prompt's turn ended: its number, the logged reason and the seq of its `turn/end`. */
export interface TurnResult {
  readonly turn: number
  readonly reason: TurnEndReason
  readonly endSeq: number
}

/** Options of `cancel`. */
export interface CancelOptions {
  /** Keep queued prompts (they run after the cancelled turn); default `false` (they reject `DISCARDED`). */
  readonly keepQueue?: boolean
}

/**
 * Exclusive use of an idle agent for session maintenance (manual compaction): while held the status is
 * `maintenance`, `send()` queues, and `cancel()` aborts `signal`. `end()` returns the agent to `idle` and runs the
 * queue; `end(seq)` reports a bracket opened at `seq` that could not be closed, so the next `send` rejects
 * `SESSION_NEEDS_RESUME`. Ending twice has no effect.
 */
export interface MaintenanceLease {
  readonly signal: AbortSignal
  end(orphanedLockSeq?: number): void
}

/** A running agent on one live session. */
export interface AgentHandle {
  readonly id: SessionId
  readonly session: Session
  readonly status: AgentStatus
  /** The number of the turn running now (`running`, `waiting-for-tool`), else `null`. */
  readonly turn: number | null
  /** The options the next request uses; assigning validates (`INVALID_OPTIONS`) and applies from the next request on. */
  options: AgentOptions
  /** Queue a prompt (FIFO, one per turn); resolves when its turn ends. */
  send(text: string): Promise<TurnResult>
  /** Resolves when nothing runs or waits. */
  idle(): Promise<void>
  /** Drop the queue (unless `keepQueue`) and abort the running turn or maintenance. */
  cancel(cause?: AgentCancelKind, options?: CancelOptions): void
  /** Cancel with `disposed`, wait for the turn to close, flush, detach; idempotent. */
  dispose(): Promise<void>
  /** Enter `maintenance` when idle; `undefined` when the agent is not idle. */
  beginMaintenance(): MaintenanceLease | undefined
}

/** Input of `ctx.agents.create`. */
export interface CreateAgentInput {
  /** Default: a random UUID. */
  readonly sessionId?: string
  readonly meta?: SessionMeta
  readonly seed?: readonly SessionEvent[]
  /** Required with a seeded `meta` (01 §5.3). */
  readonly inheritedEventCount?: number
  readonly options: AgentOptions
}

/** Input of `ctx.agents.resume`; missing options come from the newest logged `request/header`. */
export interface ResumeAgentInput {
  readonly resumeSessionId: string
  readonly options?: Partial<AgentOptions>
  readonly signal?: AbortSignal
}

/** Input of `ctx.agents.fork`; `at` defaults to the last seq, the child id to `<source>-fork-<n>`. */
export interface ForkAgentInput {
  readonly sourceSessionId: string
  readonly at?: number
  readonly childSessionId?: string
  readonly options?: Partial<AgentOptions>
}

/** What the next request of a step will carry, as `agent/pre-step` listeners see it. */
export interface PreStepRequest {
  readonly config: RequestConfig
  readonly system?: string
  readonly tools: readonly ToolSchema[]
}

/** Payload of the `agent/pre-step` waterfall, before every `step/start`. */
export interface PreStepPayload {
  readonly agent: AgentHandle
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly request: PreStepRequest
  readonly signal: AbortSignal
}

/** What an `agent/request-error` listener decides: repeat the request in the same step, or end the turn. */
export type RequestErrorDecision = { readonly kind: 'retry' } | { readonly kind: 'fail' }

/** Payload of the `agent/request-error` waterfall, after a failed attempt that was not cancelled. */
export interface RequestErrorPayload {
  readonly agent: AgentHandle
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly error: LlmFailure
  /** Counts attempts of this step's request from 1. */
  readonly attempt: number
  readonly signal: AbortSignal
}

/** What a context section renders from (spec 03 §5.6). */
export interface ContextSectionInput {
  readonly session: Session
  /** The agent's working directory: the session header's `cwd`, else the process's. */
  readonly cwd: string
  /** Epoch milliseconds of this rendering (`Date.now()`). */
  readonly now: number
}

/**
 * A named part of the runtime-context message; `render` returns its text, or `undefined` / `''` to leave it out of
 * this request's context.
 */
export interface ContextSection {
  readonly name: string
  render(input: ContextSectionInput): string | undefined | Promise<string | undefined>
}

/** The retained runtime context: the newest runtime-context `user/message` on the surface. */
export interface RuntimeContextMessage {
  readonly seq: number
  readonly sections: readonly string[]
  readonly text: string
}

/** Payload of `input/queued`: a user's message given while the agent was busy, waiting for its own turn. */
export interface QueuedInput {
  readonly content: readonly (TextBlock | ImageBlock)[]
  readonly source: UserMessageSource
}

/** Options of `ctx.agents.watch`. */
export interface WatchOptions {
  /** Yield the session's events from this seq on before the live ones (default: only events committed later). */
  readonly fromSeq?: number
  /** Aborting ends the iteration. */
  readonly signal?: AbortSignal
}

/** The `runtimeContext` block of the plugin config. */
export interface RuntimeContextConfig {
  readonly enabled: boolean
  readonly instructionFiles: readonly string[]
  readonly sections: Readonly<Record<string, boolean>>
}

/** One `agents[]` entry of the plugin config (03 §7). */
export interface ConfiguredAgent {
  readonly id: string
  readonly sessionId?: string
  readonly resumeSessionId?: string
  readonly provider: string
  readonly model: string
  readonly maxTokens?: number
  readonly system?: string
  readonly tools?: readonly string[]
  readonly prompts?: readonly string[]
}

/** The resolved plugin config (defaults in `config.ts`). */
export interface AgentLoopConfig {
  readonly maxSteps: number
  readonly maxParallelToolCalls: number
  readonly maxRequestRetries: number
  readonly toolCancelGraceMs: number
  readonly runtimeContext: RuntimeContextConfig
  readonly watchBufferEvents: number
  readonly agents: readonly ConfiguredAgent[]
}
