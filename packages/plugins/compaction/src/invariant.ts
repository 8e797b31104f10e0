/**
 * The compaction bracket companion (`@logbook/compaction/invariant`, spec 03 §8): an optional Cordis plugin that
 * vetoes, before commit, appends that break the `compaction/start` … `compaction/end` bracket relations.
 */

import type { Context } from '@deepseek-ai/cordis'
import { enforceTracedRelations, type SessionEvent, type TracedRelations } from '@logbook/session'
import { SUMMARY_NODE_ID_PREFIX, isCompactionCheckpoint } from './summary-node.ts'

/** The plugin name. */
export const name = 'compaction-invariant'
/** The companion observes the session store. */
export const inject = ['sessions']

/** The open bracket of one session. */
export interface Bracket {
  readonly id: string
  readonly seq: number
  readonly turn: number | null
  summary: boolean
  checkpoint: boolean
}

/** Where one session stands: its open turn and its open bracket. */
export interface BracketTrace {
  openTurn: number | null
  bracket: Bracket | null
}

/** Reasons an owner turn may end with while its bracket is open (a failed close, §2.6 item 9). */
const ENDINGS_INSIDE_BRACKET: ReadonlySet<string> = new Set(['interrupted', 'forked', 'error'])

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0
const show = (value: unknown): string => (value === null ? 'null' : String(value))

function namesOpen(trace: BracketTrace, type: string, id: unknown): string | undefined {
  if (trace.bracket !== null && trace.bracket.id === id) return undefined
  return `${type} names compaction ${show(id)} but the open compaction is ${trace.bracket?.id ?? 'none'}`
}

function startViolation(trace: BracketTrace, data: { compactionId?: unknown; turn?: unknown }): string | undefined {
  const open = trace.bracket
  if (open !== null) return `compaction/start while compaction ${open.id} (compaction/start at seq ${open.seq}) is open`
  if (typeof data.compactionId !== 'string' || data.compactionId === '') return 'compaction/start needs a non-empty compactionId'
  if (data.turn !== trace.openTurn) {
    return `compaction/start names turn ${show(data.turn)} but the open turn is ${trace.openTurn ?? 'none'}`
  }
  return undefined
}

function summaryViolation(trace: BracketTrace, data: {
  compactionId?: unknown; shadowedRange?: { start?: unknown; end?: unknown }; shadowedSeqs?: unknown
  shadowedTokenCount?: unknown; summaryTokenCount?: unknown
}): string | undefined {
  const open = namesOpen(trace, 'compaction/summary', data.compactionId)
  if (open !== undefined) return open
  if (trace.bracket!.summary) return `compaction/summary for ${trace.bracket!.id} is repeated`
  const seqs = data.shadowedSeqs
  if (!Array.isArray(seqs) || seqs.length === 0) return 'compaction/summary needs a non-empty shadowedSeqs'
  if (data.shadowedRange?.start !== seqs[0] || data.shadowedRange?.end !== seqs.at(-1)) {
    return 'compaction/summary shadowedRange must equal the first and last of shadowedSeqs'
  }
  if (!isCount(data.shadowedTokenCount)) return 'compaction/summary shadowedTokenCount must be an integer ≥ 0'
  if (!isCount(data.summaryTokenCount)) return 'compaction/summary summaryTokenCount must be an integer ≥ 0'
  return undefined
}

/** The detail of the first bracket rule `event` breaks against `trace`, or undefined; never mutates. */
function violation(trace: BracketTrace, event: SessionEvent): string | undefined {
  switch (event.type) {
    case 'compaction/start':
      return startViolation(trace, event.data)
    case 'compaction/summary':
      return summaryViolation(trace, event.data)
    case 'user/message': {
      if (!isCompactionCheckpoint(event)) return undefined
      const id = event.data.id.slice(SUMMARY_NODE_ID_PREFIX.length)
      const open = namesOpen(trace, `checkpoint ${event.data.id}`, id)
      if (open !== undefined) return open
      if (!trace.bracket!.summary) return `checkpoint ${event.data.id} comes before its compaction/summary`
      if (trace.bracket!.checkpoint) return `checkpoint ${event.data.id} is repeated`
      return undefined
    }
    case 'compaction/end': {
      const open = namesOpen(trace, 'compaction/end', event.data.compactionId)
      if (open !== undefined) return open
      const bracket = trace.bracket!
      if (event.data.turn !== bracket.turn) {
        return `compaction/end names turn ${show(event.data.turn)} but its compaction/start names turn ${show(bracket.turn)}`
      }
      if (event.data.error === undefined && !(bracket.summary && bracket.checkpoint)) {
        return `compaction/end without error for ${bracket.id} needs its summary and checkpoint`
      }
      return undefined
    }
    case 'turn/end': {
      const bracket = trace.bracket
      if (bracket === null || bracket.turn !== event.data.turn || ENDINGS_INSIDE_BRACKET.has(event.data.reason.kind)) return undefined
      return `turn/end ${event.data.turn} (${event.data.reason.kind}) inside compaction ${bracket.id} owned by that turn`
    }
    case 'turn/start': {
      const bracket = trace.bracket
      if (bracket === null || bracket.turn !== null) return undefined
      return `turn/start ${event.data.turn} inside manual compaction ${bracket.id}`
    }
    default:
      return undefined
  }
}

/** Apply `event` to `trace`; only called once `violation` found nothing. */
function advance(trace: BracketTrace, event: SessionEvent): void {
  switch (event.type) {
    case 'session/end-seed':
      // An end-seed ends the lifecycle: a bracket still open belongs to it (spec 01 §5.4).
      trace.bracket = null
      break
    case 'compaction/start':
      trace.bracket = { id: event.data.compactionId, seq: event.seq, turn: event.data.turn, summary: false, checkpoint: false }
      break
    case 'compaction/summary':
      trace.bracket!.summary = true
      break
    case 'user/message':
      if (isCompactionCheckpoint(event)) trace.bracket!.checkpoint = true
      break
    case 'compaction/end':
      trace.bracket = null
      break
    case 'turn/start':
      trace.openTurn = event.data.turn
      break
    case 'turn/end':
      trace.openTurn = null
      break
    default:
      break
  }
}

/**
 * The §8 bracket relations as pure functions (a fresh trace, the first violation of an event, the advance after it):
 * this companion enforces them live, and `logbook verify` replays them over stored logs.
 */
export const bracketRelations: TracedRelations<BracketTrace> = {
  start: () => ({ openTurn: null, bracket: null }),
  violation,
  advance,
}

/**
 * Enforce the §8 bracket relations on every session of `ctx.sessions` through the shared trace engine of
 * `@logbook/session`: replay existing sessions, rebuild at each `session/created` (a violation rolls the creation
 * back), and veto violating appends through one check whose commit callback advances the trace.
 * @throws SessionInvariantError `SESSION_INVARIANT` when an existing session already breaks a relation.
 */
export function apply(ctx: Context): void {
  enforceTracedRelations(ctx, bracketRelations)
}
