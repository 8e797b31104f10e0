/**
 * The model part of one step (spec 03 §5.2 items 6–9): request records, the attempt with every chunk logged, the
 * assistant message, request-error retries through `agent/request-error`, and the interrupted message of a
 * cancelled stream. Tool calls are handed to the tool runner.
 */

import { assembleMessage, hasVisibleText, requestFromSession, type ModelSource } from '@logbook/llm'
import { codeOf, messageOf } from '@logbook/session'
import type {
  AssistantMessage, LlmFailure, MessageId, StreamChunk, TokenUsage, ToolCallBlock, TurnEndReason,
} from '@logbook/session'
import { abortedReason, errorReason, type TurnState } from './reasons.ts'
import { allowedSchemas, logRequestRecords, requestConfig } from './request.ts'
import { ensureRuntimeContext } from './runtime-context.ts'
import { runTools } from './tool-runner.ts'
import type { RequestErrorDecision, RequestErrorPayload } from './types.ts'

/** How a step ended: whether tools were called, and a reason when the step ends the turn. */
export interface StepOutcome {
  readonly calledTools: boolean
  readonly end?: TurnEndReason
}

interface Attempt {
  readonly chunks: StreamChunk[]
  readonly seqs: number[]
}

type Finish = Extract<StreamChunk, { type: 'finish' }>

function finishOf(chunks: readonly StreamChunk[]): Finish {
  const last = chunks.at(-1)
  if (last?.type === 'finish') return last
  // The seam guarantees a final finish; a stream that ends without one is a protocol failure.
  return { type: 'finish', reason: 'error', error: { code: 'PROTOCOL', message: 'model stream ended without a finish chunk' } }
}

function usageOf(chunks: readonly StreamChunk[]): TokenUsage | undefined {
  for (const chunk of chunks) if (chunk.type === 'usage') return chunk.usage
  return undefined
}

/** Item 7: stream one attempt, appending every chunk (`usage` and `finish` included). */
async function streamAttempt(state: TurnState, step: number): Promise<Attempt & { source: ModelSource }> {
  const { tc, turn, signal } = state
  const { session, runtime } = tc
  const options = tc.options
  // Before every request: a compaction, a prune or a change since the last one may need the context again.
  if (runtime.config.runtimeContext.enabled) await ensureRuntimeContext(tc, signal)
  const config = requestConfig(options)
  const tools = allowedSchemas(runtime, options)
  logRequestRecords(tc, session, runtime, config, tools)
  const request = requestFromSession(session, { config, ...(tools.length > 0 ? { tools } : {}), purpose: 'turn', signal })
  const attempt: Attempt = { chunks: [], seqs: [] }
  for await (const chunk of runtime.llm.stream(request)) {
    const event = session.append('assistant/chunk', { turn, step, chunk })
    attempt.chunks.push(event.data.chunk)
    attempt.seqs.push(event.seq)
  }
  return { ...attempt, source: { kind: 'model', provider: config.provider, model: config.model } }
}

/**
 * Item 8: the assistant message citing this attempt's chunks. A completed attempt without a `usage` chunk is marked
 * `usageMissing`, and the provider's raw finish reason is copied from its `finish` (01 §1.4).
 */
function appendMessage(
  state: TurnState, step: number, attempt: Attempt, message: Omit<AssistantMessage, 'id'>, interrupted: boolean,
): AssistantMessage {
  const { session } = state.tc
  const full: AssistantMessage = { ...message, id: `assistant-${session.seq}` as MessageId }
  const usage = usageOf(attempt.chunks)
  const raw = interrupted ? undefined : finishOf(attempt.chunks).rawFinishReason
  const data = {
    turn: state.turn, step, message: full,
    ...(usage === undefined ? {} : { usage }),
    ...(interrupted ? { interrupted: true as const } : {}),
    ...(usage === undefined && !interrupted ? { usageMissing: true as const } : {}),
    ...(raw === undefined || raw === '' ? {} : { rawFinishReason: raw }),
  }
  session.append('assistant/message', data, { surfaceOp: 'append', sourceEventSeqs: attempt.seqs })
  return full
}

/** The `agent/request-error` waterfall: `retry`, or `fail` with the error the turn ends with. */
async function requestError(
  state: TurnState, step: number, error: LlmFailure, attempt: number,
): Promise<{ readonly retry: true } | { readonly retry: false; readonly code: string; readonly message: string }> {
  const { tc, turn, signal } = state
  const payload: RequestErrorPayload = { agent: tc.handle, session: tc.session, turn, step, error, attempt, signal }
  let decision: RequestErrorDecision | undefined
  try {
    decision = await tc.runtime.ctx.waterfall('agent/request-error', payload, () => ({ kind: 'fail' }) as const)
  } catch (thrown) {
    return { retry: false, code: codeOf(thrown) ?? 'HOOK_FAILED', message: messageOf(thrown) }
  }
  return decision?.kind === 'retry' ? { retry: true } : { retry: false, code: error.code, message: error.message }
}

/**
 * Items 6–9 of step `step`: attempts until one completes, the turn is cancelled, or a failure is not retried. A
 * `CHECKPOINT_FAILED` failure skips the waterfall; after `maxRequestRetries` retries the waterfall is not run again.
 */
export async function runStep(state: TurnState, step: number): Promise<StepOutcome> {
  const { tc, signal } = state
  for (let attempt = 1; ; attempt++) {
    const result = await streamAttempt(state, step)
    const finish = finishOf(result.chunks)
    if (finish.reason === 'stop' || finish.reason === 'tool-calls' || finish.reason === 'max-tokens') {
      const assembled = assembleMessage(result.chunks, result.source)
      if (finish.reason === 'max-tokens') {
        appendMessage(state, step, result, { ...assembled, content: assembled.content.filter(block => block.type !== 'tool-call') }, false)
        return { calledTools: false, end: { kind: 'max-tokens' } }
      }
      const message = appendMessage(state, step, result, assembled, false)
      const calls = message.content.filter((block): block is ToolCallBlock => block.type === 'tool-call')
      if (calls.length === 0) return { calledTools: false }
      const end = await runTools(state, step, calls)
      return end === undefined ? { calledTools: true } : { calledTools: true, end }
    }
    if (signal.aborted) {
      if (hasVisibleText(result.chunks)) appendMessage(state, step, result, assembleMessage(result.chunks, result.source), true)
      return { calledTools: false, end: abortedReason(state) }
    }
    const failure: LlmFailure = finish.error ?? { code: finish.reason === 'aborted' ? 'ABORTED' : 'PROVIDER', message: `request ${finish.reason}` }
    if (failure.code === 'CHECKPOINT_FAILED' || attempt > tc.runtime.config.maxRequestRetries) {
      return { calledTools: false, end: errorReason(failure.code, failure.message) }
    }
    const decision = await requestError(state, step, failure, attempt)
    if (signal.aborted) return { calledTools: false, end: abortedReason(state) }
    if (!decision.retry) return { calledTools: false, end: errorReason(decision.code, decision.message) }
  }
}
