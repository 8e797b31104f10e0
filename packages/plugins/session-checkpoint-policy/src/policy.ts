/**
 * The checkpoint policy (spec 02 §7, D13): `await ctx.sessions.flush(session)` at the awaited hooks of chapter 03 —
 * before a model request (`llm/before-stream`), before a top-level tool body (`tools/before-execute`) and before
 * every step (`agent/pre-step`) — for sessions live in `ctx.sessions`. Fail closed: a failed flush throws
 * `CheckpointError`, which each hook turns into a refused request, tool call or step.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { PreStepPayload } from '@logbook/agent-loop'
import type { LlmRequest } from '@logbook/llm'
import { assertNever, emitContained, messageOf, type Session, type SessionId, warnFailures } from '@logbook/session'
import type { ToolExecution } from '@logbook/tools'
import { CheckpointError } from './errors.ts'
import type { CheckpointPassedEvent, CheckpointPoint, CheckpointPolicyConfig } from './types.ts'

function describePoint(point: CheckpointPoint): string {
  switch (point) {
    case 'model-request': return 'the model request'
    case 'tool-body': return 'the tool body'
    case 'step-boundary': return 'the next step'
    default: return assertNever(point)
  }
}

/** Register the listeners `config` enables on `ctx`'s fiber (its disposal removes them). */
export function installPolicy(ctx: Context, config: CheckpointPolicyConfig): void {
  const logger = ctx.logger('session-checkpoint-policy')

  /** The live session object `session` stands for, or `undefined` (detached, or not in this store). */
  const live = (session: Session | undefined): Session | undefined =>
    session !== undefined && ctx.sessions.get(session.id) === session ? session : undefined

  const failures = warnFailures(text => logger.warn(text))
  const announce = (event: CheckpointPassedEvent): void => {
    emitContained(ctx.events, failures, 'checkpoint/passed', [event])
  }

  /** Flush `session` up to its current end; resolves to the required seq. @throws CheckpointError `CHECKPOINT_FAILED`. */
  const checkpoint = async (session: Session, point: CheckpointPoint): Promise<number> => {
    const requiredSeq = session.seq - 1
    try {
      await ctx.sessions.flush(session)
    } catch (cause) {
      throw new CheckpointError('CHECKPOINT_FAILED',
        `session "${session.id}": checkpoint before ${describePoint(point)} failed: ${messageOf(cause)}`, { cause })
    }
    return requiredSeq
  }

  if (config.modelRequests) {
    ctx.on('llm/before-stream', async (request: LlmRequest) => {
      const session = request.sessionId === undefined ? undefined : live(ctx.sessions.get(request.sessionId as SessionId))
      if (session === undefined) return
      const requiredSeq = await checkpoint(session, 'model-request')
      announce({ sessionId: session.id, point: 'model-request', requiredSeq })
    })
  }

  if (config.toolBodies) {
    ctx.on('tools/before-execute', async (execution: ToolExecution) => {
      if (execution.parentCallId !== undefined) return
      const session = live(execution.session)
      if (session === undefined) return
      const requiredSeq = await checkpoint(session, 'tool-body')
      if (execution.signal.aborted) {
        throw new CheckpointError('ABORTED', `tool call ${execution.callId} was aborted during its checkpoint`, { cause: execution.signal.reason })
      }
      announce({ sessionId: session.id, point: 'tool-body', requiredSeq, callId: execution.callId })
    })
  }

  if (config.stepBoundaries) {
    ctx.on('agent/pre-step', async (payload: PreStepPayload, next: () => unknown) => {
      const session = live(payload.session)
      if (session !== undefined) {
        const requiredSeq = await checkpoint(session, 'step-boundary')
        announce({ sessionId: session.id, point: 'step-boundary', requiredSeq })
      }
      return next()
    })
  }
}
