/**
 * Types of the tool seam (spec 03 §4): the definition a plugin registers, what a body receives and may return,
 * one execution request and its outcome. This file holds types only.
 */

import type { CallId, ImageBlock, JsonValue, Session, TextBlock, ToolSchema } from '@logbook/session'

/** How a call may be scheduled: `parallel-safe` calls run beside each other, `exclusive` ones alone. */
export type ToolConcurrency = 'exclusive' | 'parallel-safe'

/** Parsed, schema-checked arguments: always a JSON object. */
export type ToolArguments = { readonly [key: string]: JsonValue }

/** The parts a tool result may hold. */
export type ToolContent = readonly (TextBlock | ImageBlock)[]

/** What a body may return: text, content parts, or content with an error flag and metadata. */
export type ToolReturn =
  | string
  | ToolContent
  | { readonly content: string | ToolContent; readonly isError?: boolean; readonly meta?: JsonValue }

/** The second argument of a body: the call it serves and the signal it must honour. */
export interface ToolContext {
  readonly signal: AbortSignal
  readonly session: Session
  readonly callId: CallId
  readonly turn: number
  readonly step: number
}

/** A tool as a plugin registers it on `ctx.tools`. */
export interface ToolDefinition<A extends object = ToolArguments> {
  /** `^[A-Za-z0-9_-]{1,64}$`, unique in the registry. */
  readonly name: string
  readonly description: string
  /** A JSON schema of the arguments object; `type`, `properties`, `required`, `enum`, `items`, `additionalProperties: false` are enforced. */
  readonly parameters: { readonly [key: string]: JsonValue }
  /** The body. Throw `ToolError(message, code)` to fail with a code of your own. */
  execute(args: A, context: ToolContext): ToolReturn | Promise<ToolReturn>
  /** Default `exclusive`. */
  readonly concurrency?: ToolConcurrency
  /** A positive safe integer; the body's signal aborts and the outcome is `TOOL_TIMEOUT` when it is exceeded. */
  readonly timeoutMs?: number
}

/**
 * One execution request: the argument of `ctx.tools.execute` and of the awaited `tools/before-execute` hook.
 * `parentCallId` marks a nested call made by another tool's body.
 */
export interface ToolExecution {
  readonly callId: CallId
  readonly name: string
  /** The raw JSON text the model produced. */
  readonly arguments: string
  readonly signal: AbortSignal
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly parentCallId?: CallId
}

/** What went wrong in a failed execution: the thrown error's name (else `ToolError`), a code and a message. */
export interface ToolOutcomeError {
  readonly name: string
  readonly code: string
  readonly message: string
}

/** The result of one execution; failures are values, never throws. */
export interface ToolOutcome {
  readonly isError: boolean
  readonly content: ToolContent
  readonly error?: ToolOutcomeError
  readonly meta?: JsonValue
}

/** The model-facing schema of one tool. */
export type { ToolSchema }
