/**
 * Types of the model seam (spec 03 §3.1): the request, the adapter contract, model facts and token pricing.
 * This file holds types only.
 */

import type {
  Message,
  MessageSourceMap,
  RequestConfig,
  SessionEvent,
  SessionSurface,
  StreamChunk,
  ToolSchema,
} from '@logbook/session'

/** Why a request is made: a harness turn or a compaction summary. */
export type LlmPurpose = 'turn' | 'compaction'

/**
 * One model request. `messages` come from the surface, except a node-0 `system/message`, which is sent as
 * `system` (its text blocks joined by `\n`); `signal` aborts the attempt.
 */
export interface LlmRequest {
  readonly config: RequestConfig
  readonly system?: string
  readonly tools?: readonly ToolSchema[]
  readonly messages: readonly Message[]
  readonly sessionId?: string
  readonly purpose?: LlmPurpose
  readonly signal?: AbortSignal
}

/** What an adapter knows about one model; both facts are optional. */
export interface ModelInfo {
  readonly contextWindow?: number
  readonly maxTokens?: number
}

/**
 * A model API behind one provider name. `stream` makes exactly one attempt; the seam normalises its output
 * (§3.2), so an adapter may throw, end early or send too much without breaking a consumer.
 */
export interface LlmAdapter {
  readonly provider: string
  stream(request: LlmRequest): AsyncIterable<StreamChunk>
  modelInfo?(model: string): ModelInfo | undefined
}

/** Prices text, messages and tool schemas in tokens; every result is a non-negative integer. */
export interface TokenEstimator {
  text(text: string): number
  message(message: Message): number
  tools(schemas: readonly ToolSchema[]): number
}

/** The source of an assistant message the seam assembles (`{ kind: 'model', provider, model }`). */
export type ModelSource = MessageSourceMap['model']

/** The slice of a `Session` the request builder reads (structural, so detached test doubles work too). */
export interface SurfaceSource {
  readonly id: string
  readonly events: readonly SessionEvent[]
  readonly surface: SessionSurface
  deriveMessages(): Message[]
}

/** The model-visible part of a request, derived from a session's surface. */
export interface SurfaceMessages {
  readonly system?: string
  readonly messages: readonly Message[]
}
