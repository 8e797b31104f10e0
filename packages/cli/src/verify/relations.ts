/**
 * The turn, step and tool-call relations of 01 §9, checked over a whole stored log: the first violation is
 * returned as the companion would word it; an open last turn is reported separately (a resume closes it).
 */

import { isAppendSurfaceEvent, isReplacementSurfaceEvent, type SessionEvent } from '@logbook/session'

/** The outcome of the relation check. */
export interface RelationResult {
  /** The first violation: its seq and detail. */
  readonly violation?: { readonly seq: number; readonly detail: string }
  /** The turn still open at the end of the log. */
  readonly openTurn: number | null
}

interface Trace {
  openTurn: number | null
  openStep: number | null
  nextTurn: number
  nextStep: number
  requested: Set<string>
  started: Set<string>
  answered: Set<string>
}

function clear(trace: Trace): void {
  trace.requested = new Set()
  trace.started = new Set()
  trace.answered = new Set()
}

function stepMismatch(trace: Trace, type: string, data: { turn: number; step: number }): string | undefined {
  if (trace.openTurn !== null && trace.openStep !== null && data.turn === trace.openTurn && data.step === trace.openStep) return undefined
  return `${type} names turn ${data.turn}/step ${data.step} but open is turn ${trace.openTurn ?? 'none'}/step ${trace.openStep ?? 'none'}`
}

/** Apply `event` to `trace`; returns the violation detail, if any. */
function step(trace: Trace, event: SessionEvent): string | undefined {
  switch (event.type) {
    case 'turn/start': {
      const { turn } = event.data
      if (trace.openTurn !== null) return `turn/start ${turn} while turn ${trace.openTurn} is open`
      if (turn !== trace.nextTurn) return `turn/start expected turn ${trace.nextTurn}, got ${turn}`
      trace.openTurn = turn
      trace.nextStep = 1
      clear(trace)
      return undefined
    }
    case 'turn/end': {
      const { turn } = event.data
      if (turn !== trace.openTurn) return `turn/end ${turn} does not match open turn ${trace.openTurn ?? 'none'}`
      if (trace.openStep !== null) return `turn/end ${turn} while step ${trace.openStep} is open`
      trace.openTurn = null
      trace.nextTurn = turn + 1
      clear(trace)
      return undefined
    }
    case 'step/start': {
      const { turn, step: number } = event.data
      if (trace.openTurn !== turn) return `step/start in turn ${turn} but open turn is ${trace.openTurn ?? 'none'}`
      if (trace.openStep !== null) return `step/start ${number} while step ${trace.openStep} is open`
      if (number !== trace.nextStep) return `step/start expected step ${trace.nextStep} in turn ${turn}, got ${number}`
      trace.openStep = number
      return undefined
    }
    case 'step/end': {
      const problem = stepMismatch(trace, event.type, event.data)
      if (problem !== undefined) return problem
      trace.openStep = null
      trace.nextStep += 1
      clear(trace)
      return undefined
    }
    case 'assistant/chunk':
      return stepMismatch(trace, event.type, event.data)
    case 'assistant/message': {
      const problem = stepMismatch(trace, event.type, event.data)
      if (problem !== undefined) return problem
      if (!isAppendSurfaceEvent(event)) return undefined
      for (const block of event.data.message.content) if (block.type === 'tool-call') trace.requested.add(block.id)
      return undefined
    }
    case 'tool/call': {
      const problem = stepMismatch(trace, event.type, event.data)
      if (problem !== undefined) return problem
      const id = event.data.callId
      const { turn, step: number } = event.data
      if (!trace.requested.has(id)) return `tool/call ${id} was not requested in turn ${turn}/step ${number}`
      if (trace.started.has(id) || trace.answered.has(id)) return `tool/call ${id} was already started in this step`
      trace.started.add(id)
      return undefined
    }
    case 'tool/result': {
      if (isReplacementSurfaceEvent(event)) return trace.openTurn === null ? 'tool/result replacement outside any open turn' : undefined
      if (!isAppendSurfaceEvent(event)) return undefined
      const problem = stepMismatch(trace, event.type, event.data)
      if (problem !== undefined) return problem
      const id = event.data.message.source.callId
      const notStarted = event.data.message.content[0].isError === true && event.data.error?.code === 'TOOL_NOT_STARTED' && trace.requested.has(id)
      if (trace.answered.has(id) || (!trace.started.has(id) && !notStarted)) return `tool/result for ${id} has no pending tool/call in this step`
      trace.answered.add(id)
      return undefined
    }
    case 'todo/write':
    case 'request/header':
    case 'request/context':
      return trace.openTurn === null ? `${event.type} outside any open turn` : undefined
    default:
      return undefined
  }
}

/** Check every event of a log that starts at seq 0. */
export function checkRelations(events: readonly SessionEvent[]): RelationResult {
  const trace: Trace = { openTurn: null, openStep: null, nextTurn: 1, nextStep: 1, requested: new Set(), started: new Set(), answered: new Set() }
  for (const event of events) {
    const detail = step(trace, event)
    if (detail !== undefined) return { violation: { seq: event.seq, detail }, openTurn: trace.openTurn }
  }
  return { openTurn: trace.openTurn }
}
