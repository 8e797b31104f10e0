/**
 * The checks every converted session passes before an importer returns it — the ones `logbook verify` runs: the
 * event validator, the surface and the seeded contracts (`Session.create`, D3), the turn, step and tool relations
 * (01 §9, `sessionRelations`), the compaction brackets (03 §8, `bracketRelations`), a closed last turn, and tool
 * pairing on the final surface. A failure is a defect of the importer, reported as `IMPORT_INVALID`.
 */

import { bracketRelations } from '@logbook/compaction/invariant'
import { deriveEventMessage, foldSurface, Session, type SessionEvent, type SessionHeader } from '@logbook/session'
import { sessionRelations } from '@logbook/session/invariant'
import { InteropError } from './errors.ts'
import type { ImportedCounts } from './types.ts'

/** The event, turn and tool-call counts of a log. */
export function countEvents(events: readonly SessionEvent[]): ImportedCounts {
  let turns = 0
  let toolCalls = 0
  for (const event of events) {
    if (event.type === 'turn/start') turns++
    else if (event.type === 'tool/call') toolCalls++
  }
  return { events: events.length, turns, toolCalls }
}

/** The first relation or bracket violation of `events`, as the companions word it, or undefined. */
function relationProblem(events: readonly SessionEvent[]): string | undefined {
  const turns = sessionRelations.start()
  const brackets = bracketRelations.start()
  for (const event of events) {
    const detail = sessionRelations.violation(turns, event) ?? bracketRelations.violation(brackets, event)
    if (detail !== undefined) return `seq ${event.seq}: ${detail}`
    sessionRelations.advance(turns, event)
    bracketRelations.advance(brackets, event)
  }
  if (turns.openTurn !== null) return `turn ${turns.openTurn} is left open`
  if (brackets.bracket !== null) return `compaction ${brackets.bracket.id} is left open`
  return undefined
}

/** The first surface tool result without its call, or an unanswered call, or undefined. */
function pairingProblem(events: readonly SessionEvent[]): string | undefined {
  const open = new Set<string>()
  for (const seq of foldSurface(events).nodes) {
    const message = deriveEventMessage(events[seq]!)
    if (message?.role === 'assistant') {
      for (const block of message.content) if (block.type === 'tool-call') open.add(block.id)
    } else if (message?.role === 'user' && message.source.kind === 'tool') {
      if (!open.delete(message.source.callId)) return `the tool result at seq ${seq} has no call on the surface`
    }
  }
  return open.size === 0 ? undefined : `tool call ${[...open][0]} has no result on the surface`
}

/**
 * Check one converted session.
 * @throws InteropError `IMPORT_INVALID` naming the session and the rule it breaks.
 */
export function validateImported(label: string, header: SessionHeader, events: readonly SessionEvent[], inheritedEventCount: number): void {
  let problem: string | undefined
  try {
    Session.create(header.id, { seed: events, header, inheritedEventCount })
    problem = relationProblem(events) ?? pairingProblem(events)
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error)
  }
  if (problem !== undefined) {
    throw new InteropError('IMPORT_INVALID', `${label}: the converted session "${header.id}" is not a valid Logbook session: ${problem}`)
  }
}
