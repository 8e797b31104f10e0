/**
 * Compaction brackets over a whole stored log (spec 03 §2.1, §2.2, §8), with the rules and failure wording of
 * `@logbook/compaction/invariant`: a violation fails; an unmatched start after the last end-seed is a live lock
 * (repairable: a resume releases it); an unmatched start that an end-seed closed is an exempt orphan (ok, with a
 * note).
 */

import { CHECKPOINT_ID_PREFIX, isCompactionCheckpoint } from '@logbook/compaction'
import type { SessionEvent } from '@logbook/session'
import type { Finding } from './types.ts'

interface Bracket {
  readonly id: string
  readonly seq: number
  readonly turn: number | null
  summary: boolean
  checkpoint: boolean
}

interface Trace {
  openTurn: number | null
  bracket: Bracket | null
}

/** Reasons an owner turn may end with while its bracket is open (a failed close, §2.6). */
const ENDINGS_INSIDE_BRACKET: ReadonlySet<string> = new Set(['interrupted', 'forked', 'error'])

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0
const show = (value: unknown): string => (value === null ? 'null' : String(value))

function namesOpen(trace: Trace, type: string, id: unknown): string | undefined {
  if (trace.bracket !== null && trace.bracket.id === id) return undefined
  return `${type} names compaction ${show(id)} but the open compaction is ${trace.bracket?.id ?? 'none'}`
}

function summaryViolation(trace: Trace, data: Record<string, unknown>): string | undefined {
  const open = namesOpen(trace, 'compaction/summary', data.compactionId)
  if (open !== undefined) return open
  if (trace.bracket!.summary) return `compaction/summary for ${trace.bracket!.id} is repeated`
  const seqs = data.shadowedSeqs
  const range = data.shadowedRange as { start?: unknown; end?: unknown } | undefined
  if (!Array.isArray(seqs) || seqs.length === 0) return 'compaction/summary needs a non-empty shadowedSeqs'
  if (range?.start !== seqs[0] || range?.end !== seqs.at(-1)) return 'compaction/summary shadowedRange must equal the first and last of shadowedSeqs'
  if (!isCount(data.shadowedTokenCount)) return 'compaction/summary shadowedTokenCount must be an integer ≥ 0'
  if (!isCount(data.summaryTokenCount)) return 'compaction/summary summaryTokenCount must be an integer ≥ 0'
  return undefined
}

/** The detail of the first bracket rule `event` breaks against `trace`, or undefined; never mutates. */
function violation(trace: Trace, event: SessionEvent): string | undefined {
  const data = event.data as Record<string, unknown>
  switch (event.type as string) {
    case 'compaction/start': {
      const open = trace.bracket
      if (open !== null) return `compaction/start while compaction ${open.id} (compaction/start at seq ${open.seq}) is open`
      if (typeof data.compactionId !== 'string' || data.compactionId === '') return 'compaction/start needs a non-empty compactionId'
      if (data.turn !== trace.openTurn) return `compaction/start names turn ${show(data.turn)} but the open turn is ${trace.openTurn ?? 'none'}`
      return undefined
    }
    case 'compaction/summary':
      return summaryViolation(trace, data)
    case 'user/message': {
      if (!isCompactionCheckpoint(event)) return undefined
      const id = String(data.id)
      const open = namesOpen(trace, `checkpoint ${id}`, id.slice(CHECKPOINT_ID_PREFIX.length))
      if (open !== undefined) return open
      if (!trace.bracket!.summary) return `checkpoint ${id} comes before its compaction/summary`
      if (trace.bracket!.checkpoint) return `checkpoint ${id} is repeated`
      return undefined
    }
    case 'compaction/end': {
      const open = namesOpen(trace, 'compaction/end', data.compactionId)
      if (open !== undefined) return open
      const bracket = trace.bracket!
      if (data.turn !== bracket.turn) return `compaction/end names turn ${show(data.turn)} but its compaction/start names turn ${show(bracket.turn)}`
      if (data.error === undefined && !(bracket.summary && bracket.checkpoint)) {
        return `compaction/end without error for ${bracket.id} needs its summary and checkpoint`
      }
      return undefined
    }
    case 'turn/end': {
      const { turn, reason } = data as { turn: number; reason: { kind: string } }
      const bracket = trace.bracket
      if (bracket === null || bracket.turn !== turn || ENDINGS_INSIDE_BRACKET.has(reason.kind)) return undefined
      return `turn/end ${turn} (${reason.kind}) inside compaction ${bracket.id} owned by that turn`
    }
    case 'turn/start': {
      const bracket = trace.bracket
      if (bracket === null || bracket.turn !== null) return undefined
      return `turn/start ${String(data.turn)} inside manual compaction ${bracket.id}`
    }
    default:
      return undefined
  }
}

/** Apply `event` to `trace` (only after `violation` found nothing); returns the note an exempted orphan earns. */
function advance(trace: Trace, event: SessionEvent): Finding | undefined {
  const data = event.data as Record<string, unknown>
  switch (event.type as string) {
    case 'session/end-seed': {
      // An end-seed ends the lifecycle: a bracket still open belongs to it (01 §5.4) and no longer locks anything.
      const orphan = trace.bracket
      trace.bracket = null
      if (orphan === null) return undefined
      return { severity: 'ok', check: 'compaction', message: `compaction/start at seq ${orphan.seq} was orphaned; the end-seed at seq ${event.seq} exempts it`, seq: orphan.seq }
    }
    case 'compaction/start':
      trace.bracket = { id: data.compactionId as string, seq: event.seq, turn: data.turn as number | null, summary: false, checkpoint: false }
      return undefined
    case 'compaction/summary':
      trace.bracket!.summary = true
      return undefined
    case 'user/message':
      if (isCompactionCheckpoint(event)) trace.bracket!.checkpoint = true
      return undefined
    case 'compaction/end':
      trace.bracket = null
      return undefined
    case 'turn/start':
      trace.openTurn = data.turn as number
      return undefined
    case 'turn/end':
      trace.openTurn = null
      return undefined
    default:
      return undefined
  }
}

/** The compaction findings of `events` (at least one): the first violation alone, or notes and a verdict. */
export function checkBrackets(events: readonly SessionEvent[]): Finding[] {
  const trace: Trace = { openTurn: null, bracket: null }
  const notes: Finding[] = []
  let brackets = 0
  for (const event of events) {
    const detail = violation(trace, event)
    if (detail !== undefined) return [{ severity: 'FAIL', check: 'compaction', message: detail, seq: event.seq }]
    if ((event.type as string) === 'compaction/start') brackets += 1
    const note = advance(trace, event)
    if (note !== undefined) notes.push(note)
  }
  if (trace.bracket !== null) {
    const { seq } = trace.bracket
    return [...notes, { severity: 'warn', check: 'compaction', message: `live lock: compaction/start at seq ${seq} was never closed; a resume releases it`, seq }]
  }
  return [...notes, { severity: 'ok', check: 'compaction', message: `${brackets} bracket${brackets === 1 ? '' : 's'}` }]
}
