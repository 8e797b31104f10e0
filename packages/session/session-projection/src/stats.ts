/**
 * The built-in `stats` unit (03 §1.5): counters and durations of a session. Its view is the `totals` object of the
 * state; the open turn, step and call start times live in the state only. Durations are clamped at 0.
 */
import Schema from '@deepseek-ai/schemastery'
import { isAppendSurfaceEvent, type SessionEvent, type TokenUsage } from '@logbook/session'
import type { ProjectionDefinition, StatsState, StatsView } from './types.ts'

const EMPTY_TOTALS: StatsView = {
  turns: 0, steps: 0, toolCalls: 0, toolErrors: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0,
  reasoningTokens: 0, compactions: 0, turnMs: 0, modelMs: 0, toolMs: 0,
}

const count = (): Schema<number> => Schema.natural().required()

/** The schema of a stored `stats` state. */
export const StatsStateSchema: Schema<StatsState> = Schema.object({
  totals: Schema.object({
    turns: count(), steps: count(), toolCalls: count(), toolErrors: count(), inputTokens: count(), outputTokens: count(),
    cacheReadTokens: count(), reasoningTokens: count(), compactions: count(), turnMs: count(), modelMs: count(),
    toolMs: count(),
  }).required(),
  turnAt: Schema.natural(),
  stepAt: Schema.natural(),
  callsAt: Schema.dict(Schema.natural()).required(),
}) as unknown as Schema<StatsState>

const elapsed = (from: number, to: number): number => Math.max(0, to - from)

/** A writable copy of the totals, for the one fold step that builds the next state. */
type Totals = { -readonly [K in keyof StatsView]: number }

/** The totals of `s`, copied (key order kept) for the caller to add to; the state itself is never touched. */
const copyTotals = (s: StatsState): Totals => ({ ...s.totals })

function onAssistant(s: StatsState, time: number, usage: TokenUsage | undefined): StatsState {
  if (usage === undefined && s.stepAt === null) return s
  const totals = copyTotals(s)
  if (usage !== undefined) {
    totals.inputTokens += usage.inputTokens
    totals.outputTokens += usage.outputTokens
    totals.cacheReadTokens += usage.cacheReadTokens ?? 0
    totals.reasoningTokens += usage.reasoningTokens ?? 0
  }
  if (s.stepAt === null) return { ...s, totals }
  totals.modelMs += elapsed(s.stepAt, time)
  return { ...s, stepAt: null, totals }
}

function onResult(s: StatsState, event: SessionEvent<'tool/result'>): StatsState {
  if (!isAppendSurfaceEvent(event)) return s
  const failed = event.data.message.content[0].isError === true
  const callId = event.data.message.source.callId
  const startedAt = Object.hasOwn(s.callsAt, callId) ? s.callsAt[callId] : undefined
  if (startedAt === undefined && !failed) return s
  const totals = copyTotals(s)
  if (failed) totals.toolErrors += 1
  if (startedAt === undefined) return { ...s, totals }
  totals.toolMs += elapsed(startedAt, event.time)
  const { [callId]: _done, ...callsAt } = s.callsAt
  return { ...s, callsAt, totals }
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
      return { ...s, turnAt: event.time, totals }
    case 'turn/end':
      if (s.turnAt === null) return s
      totals = copyTotals(s)
      totals.turnMs += elapsed(s.turnAt, event.time)
      return { ...s, turnAt: null, totals }
    case 'step/start':
      totals = copyTotals(s)
      totals.steps += 1
      return { ...s, stepAt: event.time, totals }
    case 'step/end':
      return s.stepAt === null ? s : { ...s, stepAt: null }
    case 'assistant/message':
      return onAssistant(s, event.time, event.data.usage)
    case 'tool/call':
      totals = copyTotals(s)
      totals.toolCalls += 1
      return { ...s, callsAt: { ...s.callsAt, [event.data.callId]: event.time }, totals }
    case 'tool/result':
      return onResult(s, event)
    default:
      if (!isCleanCompactionEnd(event)) return s
      totals = copyTotals(s)
      totals.compactions += 1
      return { ...s, totals }
  }
}

/** The built-in `stats` unit (`stateVersion` 1). */
export const statsProjection: ProjectionDefinition<StatsState, StatsView, 'stats'> = {
  key: 'stats',
  stateVersion: 1,
  stateSchema: StatsStateSchema,
  init: () => ({ totals: EMPTY_TOTALS, turnAt: null, stepAt: null, callsAt: {} }),
  apply: applyStats,
  view: s => s.totals,
}
