import { describe, expect, it } from 'vitest'
import { StatsStateSchema, statsProjection, TitleStateSchema, titleProjection, TodosStateSchema, todosProjection } from '../src/index.ts'
import type { StandardSchemaLike } from '../src/index.ts'

/** The issue messages of `schema` for `value` (empty when accepted, and then the value comes back unchanged). */
function issues(schema: StandardSchemaLike, value: unknown): string[] {
  const result = schema['~standard'].validate(value) as { value?: unknown; issues?: { message: string }[] }
  if (result.issues === undefined) {
    expect(result.value).toBe(value)
    return []
  }
  return result.issues.map(issue => issue.message)
}

const stats = statsProjection.init()

describe('built-in state schemas (03 §1.4: a row is usable only if stateSchema accepts it)', () => {
  it('accept the states their folds produce, JSON round trip included', () => {
    const open = { ...stats, turnAt: 5, stepAt: 6, callsAt: { c1: 7 } }
    for (const state of [stats, open]) {
      expect(issues(StatsStateSchema, state)).toEqual([])
      expect(issues(StatsStateSchema, JSON.parse(JSON.stringify(state)))).toEqual([])
    }
    expect(issues(TodosStateSchema, todosProjection.init())).toEqual([])
    expect(issues(TodosStateSchema, { todos: [{ content: 'a', status: 'in_progress' }] })).toEqual([])
    expect(issues(TitleStateSchema, titleProjection.init())).toEqual([])
    expect(issues(TitleStateSchema, { explicit: 'X', fallback: null })).toEqual([])
  })

  it('reject a missing key, an unknown key, null where the fold never writes it, and wrong types, naming the path', () => {
    const { turnAt: _turnAt, ...noTurnAt } = stats
    expect(issues(StatsStateSchema, noTurnAt)).toEqual(['$.turnAt is required'])
    expect(issues(StatsStateSchema, { ...stats, extra: 1 })).toEqual(['$.extra is not allowed'])
    expect(issues(StatsStateSchema, { ...stats, totals: { ...stats.totals, turns: null } })).toEqual(['$.totals.turns must be a non-negative safe integer'])
    expect(issues(StatsStateSchema, { ...stats, turnAt: -1 })).toEqual(['$.turnAt must be a non-negative safe integer'])
    expect(issues(StatsStateSchema, { ...stats, callsAt: { c1: 1.5 } })).toEqual(['$.callsAt.c1 must be a non-negative safe integer'])
    expect(issues(StatsStateSchema, [])).toEqual(['$ must be an object'])
    expect(issues(TodosStateSchema, {})).toEqual(['$.todos is required'])
    expect(issues(TodosStateSchema, { todos: [{ content: 'a', status: 'done' }] }))
      .toEqual(['$.todos[0].status must be one of "pending", "in_progress", "completed"'])
    expect(issues(TodosStateSchema, { todos: [{ content: 'a', status: 'pending', note: 'x' }] })).toEqual(['$.todos[0].note is not allowed'])
    expect(issues(TitleStateSchema, {})).toEqual(['$.explicit is required'])
    expect(issues(TitleStateSchema, { explicit: null })).toEqual(['$.fallback is required'])
    expect(issues(TitleStateSchema, { explicit: 3, fallback: null })).toEqual(['$.explicit must be a string'])
  })
})
