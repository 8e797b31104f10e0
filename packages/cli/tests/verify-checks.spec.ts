import type { Context } from '@deepseek-ai/cordis'
import type { SessionEvent, SessionId } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import type { App } from '../src/app/app.ts'
import { checkBrackets } from '../src/verify/brackets.ts'
import { checkRelations } from '../src/verify/relations.ts'
import { statusOf } from '../src/verify/verify.ts'
import { tempDir, turnEvents, withStore } from './helpers/store.ts'

function renumber(events: readonly object[]): SessionEvent[] {
  return events.map((event, seq) => ({ ...event, seq })) as SessionEvent[]
}

const call = (id: string) => ({
  type: 'assistant/message', time: 0,
  data: { turn: 1, step: 1, message: { id: `a-${id}`, role: 'assistant', source: { kind: 'model', provider: 'p', model: 'm' }, content: [{ type: 'tool-call', id, name: 't', arguments: '{}' }] } },
  surfaceOp: 'append', sourceEventSeqs: [],
})
const started = (id: string) => ({ type: 'tool/call', time: 0, data: { turn: 1, step: 1, callId: id, name: 't', arguments: '{}' } })
const result = (id: string, code?: string) => ({
  type: 'tool/result', time: 0,
  data: {
    turn: 1, step: 1,
    message: { id: `r-${id}`, role: 'user', source: { kind: 'tool', callId: id }, content: [{ type: 'tool-result', toolCallId: id, isError: code !== undefined, content: [] }] },
    ...(code === undefined ? {} : { error: { name: 'E', code } }),
  },
  surfaceOp: 'append',
})
const open = [{ type: 'turn/start', time: 0, data: { turn: 1 } }, { type: 'step/start', time: 0, data: { turn: 1, step: 1 } }]
const close = [{ type: 'step/end', time: 0, data: { turn: 1, step: 1 } }, { type: 'turn/end', time: 0, data: { turn: 1, reason: { kind: 'completed' } } }]

describe('verify: turn, step and tool relations (01 §9)', () => {
  it('accepts balanced logs and reports an open last turn', () => {
    expect(checkRelations(renumber([...open, call('c1'), started('c1'), result('c1'), ...close]))).toEqual({ openTurn: null })
    expect(checkRelations(renumber([...open, call('c1'), result('c1', 'TOOL_NOT_STARTED'), ...close]))).toEqual({ openTurn: null })
    expect(checkRelations(renumber([...open, call('c1'), started('c1')]))).toEqual({ openTurn: 1 })
  })

  it('names the first violation as the companion words it', () => {
    expect(checkRelations(renumber([...open, started('c1')])).violation).toEqual({ seq: 2, detail: 'tool/call c1 was not requested in turn 1/step 1' })
    expect(checkRelations(renumber([...open, call('c1'), result('c1')])).violation).toEqual({ seq: 3, detail: 'tool/result for c1 has no pending tool/call in this step' })
    expect(checkRelations(renumber([...open, { type: 'turn/end', time: 0, data: { turn: 1, reason: { kind: 'completed' } } }])).violation)
      .toEqual({ seq: 2, detail: 'turn/end 1 while step 1 is open' })
    expect(checkRelations(renumber([{ type: 'turn/start', time: 0, data: { turn: 2 } }])).violation).toEqual({ seq: 0, detail: 'turn/start expected turn 1, got 2' })
    expect(checkRelations(renumber([{ type: 'todo/write', time: 0, data: { todos: [] } }])).violation).toEqual({ seq: 0, detail: 'todo/write outside any open turn' })
  })
})

describe('verify: compaction brackets', () => {
  const start = (turn: number | null, id = 'k1') => ({ type: 'compaction/start', time: 0, data: { compactionId: id, turn, trigger: 'manual' } })
  const end = (turn: number | null, id = 'k1') => ({ type: 'compaction/end', time: 0, data: { compactionId: id, turn, error: { code: 'SUMMARY_FAILED', message: 'x' } } })
  const base = turnEvents(0, 1, 0, 'hi')

  it('counts closed brackets; an unmatched start is a live lock unless an end-seed follows it', () => {
    expect(checkBrackets(renumber([...base, start(null), end(null)]))).toEqual([{ severity: 'ok', check: 'compaction', message: '1 bracket' }])
    expect(checkBrackets(renumber([...base, start(null)]))).toEqual([
      { severity: 'warn', check: 'compaction', message: 'live lock: compaction/start at seq 6 was never closed; a resume releases it', seq: 6 },
    ])
    const exempt = checkBrackets(renumber([...base, start(null), { type: 'session/end-seed', time: 0, data: {} }]))
    expect(exempt.map(finding => finding.severity)).toEqual(['ok', 'ok'])
    expect(exempt[0]!.message).toBe('compaction/start at seq 6 was orphaned; the end-seed at seq 7 exempts it')
  })

  it('fails nested starts, a wrong owner turn, an end without summary and a turn start inside a manual bracket', () => {
    expect(checkBrackets(renumber([...base, start(null), start(null, 'k2')]))[0]).toMatchObject({ severity: 'FAIL', seq: 7 })
    expect(checkBrackets(renumber([...base, start(1)]))[0]!.message).toBe('compaction/start names turn 1 but the open turn is none')
    expect(checkBrackets(renumber([...base, start(null), { type: 'compaction/end', time: 0, data: { compactionId: 'k1', turn: null } }]))[0]!.message)
      .toBe('compaction/end without error for k1 needs its summary and checkpoint')
    expect(checkBrackets(renumber([...base, start(null), { type: 'turn/start', time: 0, data: { turn: 2 } }]))[0]!.message)
      .toBe('turn/start 2 inside manual compaction k1')
    const summary = { type: 'compaction/summary', time: 0, data: { compactionId: 'k1', summary: 's', shadowedRange: { start: 1, end: 3 }, shadowedSeqs: [1, 2], shadowedTokenCount: 9 } }
    expect(checkBrackets(renumber([...base, start(null), summary]))[0]!.message)
      .toBe('compaction/summary shadowedRange must equal the first and last of shadowedSeqs')
  })

  it('derives the verdict from the worst finding, ignoring projection checkpoints', () => {
    expect(statusOf([{ severity: 'ok', check: 'format', message: '' }, { severity: 'warn', check: 'projection-checkpoint', message: '' }])).toBe('ok')
    expect(statusOf([{ severity: 'warn', check: 'torn-tail', message: '' }])).toBe('repairable')
    expect(statusOf([{ severity: 'warn', check: 'torn-tail', message: '' }, { severity: 'FAIL', check: 'surface', message: '' }])).toBe('corrupt')
    expect(statusOf([{ severity: 'FAIL', check: 'format', message: '' }])).toBe('unsupported')
  })
})

describe('verify words every violation exactly as the companions do', () => {
  const base = turnEvents(0, 1, 0, 'hi')
  const start = (turn: number | null, id = 'k1') => ({ type: 'compaction/start', time: 0, data: { compactionId: id, turn, trigger: 'manual' } })
  const summary = (extra: object = {}) => ({
    type: 'compaction/summary', time: 0,
    data: { compactionId: 'k1', summary: 's', shadowedRange: { start: 1, end: 3 }, shadowedSeqs: [1, 3], shadowedTokenCount: 9, summaryTokenCount: 2, ...extra },
  })
  const cases: readonly (readonly [string, readonly object[]])[] = [
    ['a tool call nobody requested', [...open, started('c1')]],
    ['a result without its call', [...open, call('c1'), result('c1')]],
    ['a second call of one id', [...open, call('c1'), started('c1'), started('c1')]],
    ['a turn ending inside a step', [...open, close[1]!]],
    ['a turn number skipped', [{ type: 'turn/start', time: 0, data: { turn: 2 } }]],
    ['a step number skipped', [...open, close[0]!, { type: 'step/start', time: 0, data: { turn: 1, step: 3 } }]],
    ['an assistant message outside its step', [...open, close[0]!, call('c1')]],
    ['a todo list outside a turn', [{ type: 'todo/write', time: 0, data: { todos: [] } }]],
    ['a start naming a turn that is not open', [...base, start(1)]],
    ['a nested start', [...base, start(null), start(null, 'k2')]],
    ['a turn starting inside a manual compaction', [...base, start(null), { type: 'turn/start', time: 0, data: { turn: 2 } }]],
    ['a summary for another compaction', [...base, start(null, 'k2'), summary()]],
    ['a summary with a wrong range', [...base, start(null), summary({ shadowedRange: { start: 1, end: 2 } })]],
    ['a summary without a token count', [...base, start(null), summary({ summaryTokenCount: -1 })]],
    ['a repeated summary', [...base, start(null), summary(), summary()]],
    ['an end without summary and checkpoint', [...base, start(null), { type: 'compaction/end', time: 0, data: { compactionId: 'k1', turn: null } }]],
    ['an end naming another turn', [...base, start(null), { type: 'compaction/end', time: 0, data: { compactionId: 'k1', turn: 1, error: { code: 'X', message: 'x' } } }]],
    ['an owner turn completing inside its bracket', [...base.slice(0, 5), start(1), base[5]!]],
  ]

  /** The companions' detail for `events`, or undefined when they accept them (the embedded app loads all three). */
  async function companionDetail(app: App, events: readonly SessionEvent[], n: number): Promise<string | undefined> {
    const id = `case-${n}` as SessionId
    const fiber = app.ctx.plugin({ name: 'verify-case', inject: ['sessions'], apply: (ctx: Context) => void ctx.sessions.create(id, { seed: events }) })
    try {
      await fiber
      return undefined
    } catch (error) {
      expect(error).toMatchObject({ code: 'SESSION_INVARIANT' })
      return (error as Error).message.replace(`session "${id}" invariant: `, '')
    } finally {
      await fiber.dispose()
    }
  }

  it('every relation and bracket violation: same first violation, same detail', async () => {
    await withStore(tempDir(), async (app) => {
      for (const [n, [what, log]] of cases.entries()) {
        const events = renumber(log)
        const relations = checkRelations(events).violation?.detail
        const brackets = checkBrackets(events).find(finding => finding.severity === 'FAIL')?.message
        const mine = relations ?? brackets
        expect(mine, what).toBeDefined()
        expect(mine, what).toBe(await companionDetail(app, events, n))
      }
      expect(await companionDetail(app, renumber([...open, call('c1'), started('c1'), result('c1'), ...close]), 99)).toBeUndefined()
    })
  })
})
