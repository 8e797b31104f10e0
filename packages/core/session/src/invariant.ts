/**
 * The session invariant companion (`@logbook/session/invariant`, spec 01 §9): an optional Cordis plugin that vetoes
 * appends breaking the turn, step and tool-call relations of the core vocabulary, before they commit.
 */

import type { Context } from '@deepseek-ai/cordis'
import { isAppendSurfaceEvent as isAppendOrigin, isReplacementSurfaceEvent as isReplacementOrigin } from './surface.ts'
import { enforceTracedRelations, type TracedRelations } from './traced-relations.ts'
import type { SessionEvent } from './types.ts'

/** The plugin name. */
export const name = 'session-invariant'
/** The companion observes the session store. */
export const inject = ['sessions']

/** Where one session stands in the relations (01 §9 "Trace"); the three sets are per step. */
export interface SessionRelationTrace {
  lastSeq: number
  openTurn: number | null
  openStep: number | null
  nextTurn: number
  nextStep: number
  readonly requested: Set<string>
  readonly started: Set<string>
  readonly answered: Set<string>
}

function newTrace(): SessionRelationTrace {
  return { lastSeq: -1, openTurn: null, openStep: null, nextTurn: 1, nextStep: 1,
    requested: new Set(), started: new Set(), answered: new Set() }
}

function clearStep(trace: SessionRelationTrace): void {
  trace.requested.clear()
  trace.started.clear()
  trace.answered.clear()
}

function namesOpenStep(trace: SessionRelationTrace, type: string, data: { readonly turn: number; readonly step: number }): string | undefined {
  if (trace.openTurn !== null && trace.openStep !== null && data.turn === trace.openTurn && data.step === trace.openStep) return undefined
  return `${type} names turn ${data.turn}/step ${data.step} but open is turn ${trace.openTurn ?? 'none'}/step ${trace.openStep ?? 'none'}`
}

/** The §9 detail of the first rule `event` breaks against `trace`, or undefined; never mutates. */
function violation(trace: SessionRelationTrace, event: SessionEvent): string | undefined {
  if (event.seq !== trace.lastSeq + 1) return `seq ${event.seq} does not follow ${trace.lastSeq}`
  switch (event.type) {
    case 'turn/start': {
      const turn = event.data.turn
      if (trace.openTurn !== null) return `turn/start ${turn} while turn ${trace.openTurn} is open`
      if (turn !== trace.nextTurn) return `turn/start expected turn ${trace.nextTurn}, got ${turn}`
      return undefined
    }
    case 'turn/end': {
      const turn = event.data.turn
      if (turn !== trace.openTurn) return `turn/end ${turn} does not match open turn ${trace.openTurn ?? 'none'}`
      if (trace.openStep !== null) return `turn/end ${turn} while step ${trace.openStep} is open`
      return undefined
    }
    case 'step/start': {
      const { turn, step } = event.data
      if (turn !== trace.openTurn) return `step/start in turn ${turn} but open turn is ${trace.openTurn ?? 'none'}`
      if (trace.openStep !== null) return `step/start ${step} while step ${trace.openStep} is open`
      if (step !== trace.nextStep) return `step/start expected step ${trace.nextStep} in turn ${turn}, got ${step}`
      return undefined
    }
    case 'step/end':
    case 'assistant/chunk':
    case 'assistant/message':
      return namesOpenStep(trace, event.type, event.data)
    case 'tool/call': {
      const id = event.data.callId
      const open = namesOpenStep(trace, event.type, event.data)
      if (open !== undefined) return open
      if (!trace.requested.has(id)) return `tool/call ${id} was not requested in turn ${trace.openTurn}/step ${trace.openStep}`
      if (trace.started.has(id) || trace.answered.has(id)) return `tool/call ${id} was already started in this step`
      return undefined
    }
    case 'tool/result': {
      if (isReplacementOrigin(event)) {
        return trace.openTurn === null ? 'tool/result replacement outside any open turn' : undefined
      }
      if (!isAppendOrigin(event)) return undefined
      const open = namesOpenStep(trace, event.type, event.data)
      if (open !== undefined) return open
      const id = event.data.message.source.callId
      const synthetic = event.data.message.content[0].isError === true && event.data.error?.code === 'TOOL_NOT_STARTED'
        && trace.requested.has(id)
      if (trace.answered.has(id) || !(trace.started.has(id) || synthetic)) {
        return `tool/result for ${id} has no pending tool/call in this step`
      }
      return undefined
    }
    case 'todo/write':
    case 'request/header':
    case 'request/context':
      return trace.openTurn === null ? `${event.type} outside any open turn` : undefined
    default:
      // system/message, user/message, session/end-seed and plugin types are unconstrained here.
      return undefined
  }
}

/** Apply `event` to `trace`; only called once `violation` found nothing. */
function advance(trace: SessionRelationTrace, event: SessionEvent): void {
  trace.lastSeq = event.seq
  switch (event.type) {
    case 'turn/start':
      trace.openTurn = event.data.turn
      trace.openStep = null
      trace.nextStep = 1
      clearStep(trace)
      break
    case 'turn/end':
      trace.openTurn = null
      trace.openStep = null
      trace.nextTurn = event.data.turn + 1
      clearStep(trace)
      break
    case 'step/start':
      trace.openStep = event.data.step
      break
    case 'step/end':
      trace.openStep = null
      trace.nextStep++
      clearStep(trace)
      break
    case 'assistant/message':
      if (!isAppendOrigin(event)) break
      for (const block of event.data.message.content) if (block.type === 'tool-call') trace.requested.add(block.id)
      break
    case 'tool/call':
      trace.started.add(event.data.callId)
      break
    case 'tool/result':
      if (isAppendOrigin(event)) trace.answered.add(event.data.message.source.callId)
      break
    default:
      break
  }
}

/** The §9 relations as pure functions: this companion enforces them live, and `logbook verify` replays them. */
export const sessionRelations: TracedRelations<SessionRelationTrace> = { start: newTrace, violation, advance }

/**
 * Enforce 01 §9 on every session of `ctx.sessions` through the shared trace engine: replay the sessions already
 * there, rebuild a trace at each `session/created` (a violation there rolls the creation back), and veto violating
 * appends through one check whose commit callback advances the trace, so a vetoed candidate never does.
 * @throws SessionInvariantError `SESSION_INVARIANT` when an existing session already breaks a relation.
 */
export function apply(ctx: Context): void {
  enforceTracedRelations(ctx, sessionRelations)
}
