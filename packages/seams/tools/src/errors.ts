/**
 * Errors of the tool seam (spec 03 §4): registry misuse throws `ToolRegistryError`; a body throws `ToolError` to
 * fail with a code of its own. Execution failures are never thrown: they are `ToolOutcome` values whose
 * `error.code` is a `ToolOutcomeCode` or a code a body or hook chose.
 */

import { CodedError } from '@logbook/session'

/** Every code a `ToolRegistryError` can carry. */
export type ToolRegistryErrorCode = 'TOOL_NAME_TAKEN' | 'INVALID_TOOL'

/** The codes the seam itself gives failed outcomes (§4 steps 1–3). */
export type ToolOutcomeCode = 'UNKNOWN_TOOL' | 'INVALID_ARGS' | 'HOOK_FAILED' | 'TOOL_ERROR' | 'ABORTED' | 'TOOL_TIMEOUT'

/** A misuse of the registry; nothing was registered. `code` is from a closed list (read-only). */
export class ToolRegistryError extends CodedError<ToolRegistryErrorCode> {}

/**
 * A failure a tool body throws on purpose: the outcome keeps `code` (default `TOOL_ERROR`) and the message, and
 * its `error.name` is `ToolError`.
 */
export class ToolError extends CodedError<string> {
  constructor(message: string, code = 'TOOL_ERROR') {
    super(typeof code === 'string' && code !== '' ? code : 'TOOL_ERROR', message)
    // Subclasses of a tool's own keep the documented name: the outcome reports it as `error.name`.
    this.name = 'ToolError'
  }
}
