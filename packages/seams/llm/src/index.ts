/**
 * `@logbook/llm` — the model adapter seam (spec 03 §3): `ctx.llm`, requests derived from the surface, the
 * normalised stream protocol, message assembly and token estimation.
 */

import { LlmService } from './service.ts'
import type { LlmRequest, TokenEstimator } from './types.ts'

declare module '@deepseek-ai/cordis' {
  interface Context {
    llm: LlmService
    /** Optional service replacing `defaultTokenEstimator` (read with `ctx.get`, or through `tokenEstimatorOf`). */
    tokenEstimator: TokenEstimator
  }
  interface Events {
    /**
     * Awaited (parallel) on a stream's first pull, before the adapter is called. A rejection ends the attempt
     * with `finish error` carrying the earliest-registered failing listener's code, else `HOOK_FAILED`.
     */
    'llm/before-stream'(request: LlmRequest): void | Promise<void>
  }
}

/** The plugin: the `Service` registered as `ctx.llm`. */
export default LlmService

export { LlmService }
export { assembleMessage, hasVisibleText, type AssembledMessage } from './assemble.ts'
export { surfaceMessages, requestFromSession, type RequestInit } from './request.ts'
export { defaultTokenEstimator, tokenEstimatorOf } from './estimator.ts'
export { finishAborted, finishError } from './failure.ts'
export {
  LlmError,
  LlmFailureError,
  LLM_FAILURE_CODES,
  isLlmFailureCode,
  type LlmErrorCode,
  type LlmFailureCode,
} from './errors.ts'
export type {
  LlmAdapter,
  LlmPurpose,
  LlmRequest,
  ModelInfo,
  ModelSource,
  SurfaceMessages,
  SurfaceSource,
  TokenEstimator,
} from './types.ts'
