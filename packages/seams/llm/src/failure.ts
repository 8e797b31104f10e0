/**
 * Turning thrown values and hook rejections into in-band `LlmFailure`s and `finish` chunks (spec 03 §3.2).
 */

import { codeOf, type LlmFailure, messageOf, type StreamChunk } from '@logbook/session'
import { LlmFailureError, type LlmFailureCode } from './errors.ts'

/**
 * The failure a thrown value stands for: an `LlmFailureError`'s failure as is; otherwise its UPPER_SNAKE `code`
 * (else `fallback`), its message, and `status`, `retryAfterMs`, `requestId` when they have the right types.
 */
export function failureFromError(error: unknown, fallback: LlmFailureCode): LlmFailure {
  if (error instanceof LlmFailureError) return error.failure
  const source = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  const failure: { -readonly [K in keyof LlmFailure]: LlmFailure[K] } = {
    message: messageOf(error),
    code: codeOf(error) ?? fallback,
  }
  if (typeof source.status === 'number' && Number.isInteger(source.status)) failure.status = source.status
  if (typeof source.retryAfterMs === 'number' && source.retryAfterMs >= 0) failure.retryAfterMs = source.retryAfterMs
  if (typeof source.requestId === 'string') failure.requestId = source.requestId
  return failure
}

/** A `finish error` chunk carrying `failure`. */
export function finishError(failure: LlmFailure): StreamChunk {
  return { type: 'finish', reason: 'error', error: failure }
}

/** The `finish aborted` chunk of an attempt whose signal fired. */
export function finishAborted(message = 'request aborted'): StreamChunk {
  return { type: 'finish', reason: 'aborted', error: { code: 'ABORTED', message } }
}
