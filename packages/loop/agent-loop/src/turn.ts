/**
 * One turn (spec 03 §5.2 items 1–5, 10–11): `turn/start`, the system head, the runtime context, the user message
 * (a prompt's, a queued input's, or none when the input is a user message already logged), then steps until the
 * model stops calling tools, a step ends the turn, `maxSteps` is reached or the turn is cancelled; `turn/end` last.
 */

import { assertNever, codeOf, messageOf, type MessageId, type Session, type SystemMessage, type TurnEndReason, type UserMessage } from '@logbook/session'
import { queuedMessage, type TurnInput } from './input.ts'
import { abortedReason, errorReason, type TurnContext, type TurnState } from './reasons.ts'
import { ensureRuntimeContext } from './runtime-context.ts'
import { allowedSchemas, requestConfig, systemText } from './request.ts'
import { runStep } from './step.ts'
import type { AgentCancelKind, PreStepPayload, PreStepRequest, TurnResult } from './types.ts'
import { nextTurnNumber } from './log-scan.ts'

export type { TurnContext } from './reasons.ts'

function systemMessage(seq: number, text: string): SystemMessage {
  return { id: `system-${seq}` as MessageId, role: 'system', content: [{ type: 'text', text }], source: { kind: 'system' } }
}

function userMessage(seq: number, text: string): UserMessage {
  return { id: `user-${seq}` as MessageId, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
}

/**
 * Item 2: on an empty surface, `options.system` becomes node 0; a changed `system` replaces a system node 0 (covering
 * exactly it and citing it); otherwise the option is ignored with one warning per agent.
 */
function applySystem(tc: TurnContext): void {
  const { session } = tc
  const text = tc.options.system
  if (text === undefined) return
  const head = session.surface.nodes[0]
  if (head === undefined) {
    session.append('system/message', systemMessage(session.seq, text), { surfaceOp: 'append' })
    return
  }
  const current = systemText(session)
  if (current === undefined) {
    if (!tc.systemWarned) {
      tc.systemWarned = true
      tc.runtime.warn(`agent "${session.id}": option system ignored: surface node 0 (seq ${head}) is a ${session.events[head]!.type}, not a system/message`)
    }
    return
  }
  if (current === text) return
  session.append('system/message', systemMessage(session.seq, text), {
    surfaceOp: { op: 'replace', start: head, end: head },
    sourceEventSeqs: [head],
  })
}

/** Item 3: the turn's user message, appended as one of the loop's own (a logged input is on the surface already). */
function appendInput(tc: TurnContext, input: TurnInput): void {
  const { session } = tc
  switch (input.kind) {
    case 'prompt':
      tc.own(() => session.append('user/message', userMessage(session.seq, input.text), { surfaceOp: 'append' }))
      return
    case 'queued':
      tc.own(() => session.append('user/message', queuedMessage(session.seq, input.input), { surfaceOp: 'append', sourceEventSeqs: [input.seq] }))
      return
    case 'logged':
      return
    default:
      assertNever(input)
  }
}

/** Item 4: the `agent/pre-step` waterfall; a reason ends the turn before `step/start`. */
async function preStep(state: TurnState, step: number): Promise<TurnEndReason | undefined> {
  const { tc, turn, signal } = state
  const { session, runtime } = tc
  const options = tc.options
  const system = systemText(session)
  const request: PreStepRequest = {
    config: requestConfig(options),
    ...(system === undefined ? {} : { system }),
    tools: allowedSchemas(runtime, options),
  }
  const payload: PreStepPayload = { agent: tc.handle, session, turn, step, request, signal }
  let proceeded = false
  try {
    await runtime.ctx.waterfall('agent/pre-step', payload, () => {
      proceeded = true
    })
  } catch (error) {
    return errorReason(codeOf(error) ?? 'HOOK_FAILED', messageOf(error))
  }
  if (signal.aborted) return abortedReason(state)
  return proceeded ? undefined : { kind: 'blocked' }
}

/** Items 4–11 for every step; `onStep` tracks the open step so a failure can still close it. */
async function runSteps(state: TurnState, onStep: (step: number | undefined) => void): Promise<TurnEndReason> {
  const { tc, turn, signal } = state
  const { session } = tc
  for (let step = 1; ; step++) {
    if (signal.aborted) return abortedReason(state)
    const gate = await preStep(state, step)
    if (gate !== undefined) return gate
    session.append('step/start', { turn, step })
    onStep(step)
    const outcome = await runStep(state, step)
    session.append('step/end', { turn, step })
    onStep(undefined)
    if (outcome.end !== undefined) return outcome.end
    if (!outcome.calledTools) return { kind: 'completed' }
    if (step >= tc.runtime.config.maxSteps) return { kind: 'max-steps' }
  }
}

/**
 * Run one turn for `input` to its `turn/end`. An unexpected failure inside the turn (a vetoed append, a throwing
 * adapter wrapper) is logged and closes the turn `{ kind: 'error' }` with the failure's code (`LOOP_FAILED` when it
 * has none); only a failure to write the closing events rejects.
 */
export async function runTurn(
  tc: TurnContext, input: TurnInput, signal: AbortSignal, cause: () => AgentCancelKind | undefined,
): Promise<TurnResult> {
  const session: Session = tc.session
  const turn = nextTurnNumber(session.events)
  session.append('turn/start', { turn })
  tc.turnStarted(turn)
  const state: TurnState = { tc, turn, signal, cause }
  let openStep: number | undefined
  let reason: TurnEndReason
  try {
    applySystem(tc)
    // The context goes before the prompt, so a turn's first request reads it ahead of what the user asked.
    if (tc.runtime.config.runtimeContext.enabled) await ensureRuntimeContext(tc, signal)
    appendInput(tc, input)
    reason = await runSteps(state, step => {
      openStep = step
    })
    // A cancel that lands after the model's last finish still ends the turn aborted (§5.5); errors keep their code.
    if (signal.aborted && reason.kind !== 'error') reason = abortedReason(state)
  } catch (error) {
    tc.runtime.warn(`agent "${session.id}": turn ${turn} failed: ${messageOf(error)}`)
    reason = errorReason(codeOf(error) ?? 'LOOP_FAILED', messageOf(error))
    if (openStep !== undefined) session.append('step/end', { turn, step: openStep })
  }
  const end = session.append('turn/end', { turn, reason })
  return { turn, reason: end.data.reason, endSeq: end.seq }
}
