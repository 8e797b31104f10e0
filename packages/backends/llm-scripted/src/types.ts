/**
 * Types of the scripted model (spec 03 §3.3): the script format as written, and its validated form.
 * This file holds types only.
 */

import type { LlmFailureCode, LlmPurpose } from '@logbook/llm'
import type { JsonValue, TokenUsage } from '@logbook/session'

/** When an entry applies; every given condition must hold. */
export interface ScriptMatch {
  /** The request's purpose (a request without one counts as `turn`). */
  readonly purpose?: LlmPurpose
  /** A substring of the last user message that is not a tool result (its text blocks joined by `\n`). */
  readonly lastUserIncludes?: string
  /** The last message is the result of a call to this tool. */
  readonly afterTool?: string
}

/** A tool call the reply makes; a missing id is derived deterministically (README). */
export interface ScriptToolCall {
  readonly id?: string
  readonly name: string
  readonly arguments: string | { readonly [key: string]: JsonValue }
}

/** A failure the reply ends with, after `afterChunks` content chunks; `throw: true` makes the adapter throw it. */
export interface ScriptFailure {
  readonly code: LlmFailureCode
  readonly message: string
  readonly afterChunks?: number
  readonly throw?: boolean
}

/** One scripted response, as written in a script file or an inline `script` array. */
export interface ScriptEntry {
  readonly match?: ScriptMatch
  readonly times?: number
  readonly repeat?: boolean
  readonly reasoning?: string
  readonly text?: string
  readonly toolCalls?: readonly ScriptToolCall[]
  readonly usage?: TokenUsage
  readonly finish?: 'stop' | 'tool-calls' | 'max-tokens'
  readonly error?: ScriptFailure
  readonly delayMs?: number
  readonly chunkDelayMs?: number
  readonly chunkSize?: number
  readonly hang?: boolean
}

/** A script file: an array of entries, or `{ "responses": [...] }`. */
export type ScriptSource = readonly ScriptEntry[] | { readonly responses: readonly ScriptEntry[] }

/** A validated entry: defaults applied, arguments as JSON text, `times` infinite for `repeat`. */
export interface ScriptResponse {
  readonly index: number
  readonly match: ScriptMatch
  readonly times: number
  readonly reasoning: string
  readonly text: string
  readonly toolCalls: readonly { readonly id?: string; readonly name: string; readonly arguments: string }[]
  readonly usage?: TokenUsage
  readonly finish?: 'stop' | 'tool-calls' | 'max-tokens'
  readonly error?: ScriptFailure
  readonly delayMs: number
  readonly chunkDelayMs: number
  readonly chunkSize?: number
  readonly hang: boolean
}
