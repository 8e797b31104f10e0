/**
 * Errors and failure codes of the model seam (spec 03 §3). Registry misuse throws `LlmError`; everything that
 * goes wrong during a request is reported in-band as `finish error` with an `LlmFailureCode`.
 */

import { CodedError, type LlmFailure } from '@logbook/session'

/** Every code an `LlmError` can carry. */
export type LlmErrorCode = 'DUPLICATE_PROVIDER'

/** Every failure code a stream's `finish` can carry (§3.2). */
export type LlmFailureCode =
  | 'CONTEXT_WINDOW_EXCEEDED'
  | 'RATE_LIMIT'
  | 'AUTH'
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'TIMEOUT'
  | 'NETWORK'
  | 'PROVIDER'
  | 'PROTOCOL'
  | 'CONTENT_FILTER'
  | 'ABORTED'
  | 'NO_ADAPTER'
  | 'HOOK_FAILED'
  | 'CHECKPOINT_FAILED'
  | 'SCRIPT_EXHAUSTED'

/** The failure codes of §3.2, in the order the spec lists them. */
export const LLM_FAILURE_CODES: readonly LlmFailureCode[] = Object.freeze([
  'CONTEXT_WINDOW_EXCEEDED', 'RATE_LIMIT', 'AUTH', 'BAD_REQUEST', 'NOT_FOUND', 'TIMEOUT', 'NETWORK', 'PROVIDER',
  'PROTOCOL', 'CONTENT_FILTER', 'ABORTED', 'NO_ADAPTER', 'HOOK_FAILED', 'CHECKPOINT_FAILED', 'SCRIPT_EXHAUSTED',
])

/** True iff `value` is one of the §3.2 failure codes. */
export function isLlmFailureCode(value: unknown): value is LlmFailureCode {
  return typeof value === 'string' && (LLM_FAILURE_CODES as readonly string[]).includes(value)
}

/** A misuse of the adapter registry; `code` is from a closed list (read-only). */
export class LlmError extends CodedError<LlmErrorCode> {}

/**
 * An adapter-side failure an adapter may throw from `stream`; the seam turns it into `finish error` carrying
 * `failure` unchanged (any thrown value with a string `code` works the same way).
 */
export class LlmFailureError extends CodedError<string> {
  readonly failure: LlmFailure

  constructor(failure: LlmFailure) {
    super(failure.code, failure.message)
    this.failure = failure
  }
}
