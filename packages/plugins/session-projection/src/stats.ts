/**
 * The built-in `stats` unit (03 §1.5): counters and durations of a session. Its view is the `totals` object of the
 * state; the open turn, step and call start times live in the state only. Durations are clamped at 0.
 */
import { isAppendSurfaceEvent, type SessionEvent, type TokenUsage } from '@logbook/session'
import { StatsStateSchema } from './schemas.ts'
import type { ProjectionDefinition, StatsState, StatsView } from './types.ts'

const EMPTY_TOTALS: StatsView = {
  turns: 0, steps: 0, toolCalls: 0, toolErrors: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0,
  reasoningTokens: 0, compactions: 0, turnMs: 0, modelMs: 0, toolMs: 0,
}

const elapsed = (from: number, to: number): number => Math.max(0, to - from)

/** A writable copy of the totals, for the one fold step that builds the next state. */
type Totals = { -readonly [K in keyof StatsView]: number }

/**
 * The totals of `s`, copied field by field for the caller to add to (a spread of a frozen object is several times
 * slower); the fields are `init`'s, in its order.
 */
function copyTotals({ totals: t }: StatsState): Totals {
  return {
    turns: t.turns, steps: t.steps, toolCalls: t.toolCalls, toolErrors: t.toolErrors, inputTokens: t.inputTokens,
    outputTokens: t.outputTokens, cacheReadTokens: t.cacheReadTokens, reasoningTokens: t.reasoningTokens,
    compactions: t.compactions, turnMs: t.turnMs, modelMs: t.modelMs, toolMs: t.toolMs,
  }
}

const { freeze } = Object

/**
 * A new state from its four fields, in `init`'s order (built field by field for the same reason), frozen here with
 * its totals and calls: the registry's deep freeze then stops at the frozen state at once instead of walking its
 * sixteen fields on every fold step (most of a rebuild's time otherwise).
 */
function stateOf(totals: StatsView, turnAt: number | null, stepAt: number | null, callsAt: StatsState['callsAt']): StatsState {
  return freeze({ totals: freeze(totals), turnAt, stepAt, callsAt: freeze(callsAt) })
}

function onAssistant(s: StatsState, time: number, usage: TokenUsage | undefined): StatsState {
  if (usage === undefined && s.stepAt === null) return s
  const totals = copyTotals(s)
  if (usage !== undefined) {
    totals.inputTokens += usage.inputTokens
    totals.outputTokens += usage.outputTokens
    totals.cacheReadTokens += usage.cacheReadTokens ?? 0
    totals.reasoningTokens += usage.reasoningTokens ?? 0
  }
  if (s.stepAt === null) return stateOf(totals, s.turnAt, null, s.callsAt)
  totals.modelMs += elapsed(s.stepAt, time)
  return stateOf(totals, s.turnAt, null, s.callsAt)
}

function onResult(s: StatsState, event: SessionEvent<'tool/result'>): StatsState {
  if (!isAppendSurfaceEvent(event)) return s
  const failed = event.data.message.content[0].isError === true
  const callId = event.data.message.source.callId
  const startedAt = Object.hasOwn(s.callsAt, callId) ? s.callsAt[callId] : undefined
  if (startedAt === undefined && !failed) return s
  const totals = copyTotals(s)
  if (failed) totals.toolErrors += 1
  if (startedAt === undefined) return stateOf(totals, s.turnAt, s.stepAt, s.callsAt)
  totals.toolMs += elapsed(startedAt, event.time)
  const { [callId]: _done, ...callsAt } = s.callsAt
  return stateOf(totals, s.turnAt, s.stepAt, callsAt)
}

/** `compaction/end` is declared by the compaction seam; read it loosely here. */
function isCleanCompactionEnd(event: SessionEvent): boolean {
  if ((event.type as string) !== 'compaction/end') return false
  const data = event.data as unknown
  return typeof data === 'object' && data !== null && (data as { error?: unknown }).error === undefined
}

/** The `stats` fold: each handled event builds one new state (and one totals copy when a total moves). */
function applyStats(s: StatsState, event: SessionEvent): StatsState {
  // Streamed chunks are most of any log and move no total: answer them before the switch.
  if (event.type === 'assistant/chunk') return s
  let totals: Totals
  switch (event.type) {
    case 'turn/start':
      totals = copyTotals(s)
      totals.turns += 1
      return stateOf(totals, event.time, s.stepAt, s.callsAt)
    case 'turn/end':
      if (s.turnAt === null) return s
      totals = copyTotals(s)
      totals.turnMs += elapsed(s.turnAt, event.time)
      return stateOf(totals, null, s.stepAt, s.callsAt)
    case 'step/start':
      totals = copyTotals(s)
      totals.steps += 1
      return stateOf(totals, s.turnAt, event.time, s.callsAt)
    case 'step/end':
      return s.stepAt === null ? s : stateOf(s.totals, s.turnAt, null, s.callsAt)
    case 'assistant/message':
      return onAssistant(s, event.time, event.data.usage)
    case 'tool/call':
      totals = copyTotals(s)
      totals.toolCalls += 1
      return stateOf(totals, s.turnAt, s.stepAt, { ...s.callsAt, [event.data.callId]: event.time })
    case 'tool/result':
      return onResult(s, event)
    default:
      if (!isCleanCompactionEnd(event)) return s
      totals = copyTotals(s)
      totals.compactions += 1
      return stateOf(totals, s.turnAt, s.stepAt, s.callsAt)
  }
}

/** The built-in `stats` unit (`stateVersion` 1). */
export const statsProjection: ProjectionDefinition<StatsState, StatsView, 'stats'> = {
  key: 'stats',
  stateVersion: 1,
  stateSchema: StatsStateSchema,
  init: () => ({ totals: EMPTY_TOTALS, turnAt: null, stepAt: null, callsAt: {} }),
  apply: applyStats,
  // Every type `applyStats` handles; the rest (chunks above all) are not even offered to it.
  eventTypes: ['turn/start', 'turn/end', 'step/start', 'step/end', 'assistant/message', 'tool/call', 'tool/result', 'compaction/end'],
  view: s => s.totals,
}
