import type { Session, SessionEvent } from '@logbook/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendTitle, foldProjection, statsProjection, titleProjection, todosProjection, type ProjectionDefinition } from '../src/index.ts'
import { appendAs, collect, makeApp, mark, MARK, NO_BUILTINS, seqList, sid, thrown, turn, unitM, userMsg } from './helpers.ts'

/** Unit M declaring the one type it folds, and counting every call it gets. */
function countedM(calls: number[], key = 'test/m'): ProjectionDefinition<number, number> {
  const m = unitM(key)
  return { ...m, eventTypes: [MARK], apply: (n, e) => (calls.push(e.seq), m.apply(n, e)) }
}

describe('eventTypes: a unit that names the event types it folds (03 §1.1)', () => {
  it('L-201 apply is called only for the named types; asOfSeq, watermarks and notices are as if it returned the same state', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const p = app.sessionProjections
    const s = app.sessions.create(sid('s'))
    appendAs(s, 'test/other')
    mark(s)
    appendAs(s, 'test/other')
    const calls: number[] = []
    p.register(countedM(calls))
    // Catch-up over a log whose last event no unit folds.
    expect(p.snapshot(s)).toEqual({ sessionId: 's', asOfSeq: 2, values: { 'test/m': 1 }, faults: {} })
    expect(calls).toEqual([1])
    const changes = collect(app)
    appendAs(s, 'test/other')
    appendAs(s, 'test/other')
    const m = mark(s)
    appendAs(s, 'test/other')
    // The live drive: skipped events still pass the watermark, so the mark is applied exactly once.
    expect(p.stateOf(s, 'test/m')).toBe(2)
    expect(calls).toEqual([1, m.seq])
    // The first live event reports what the catch-up changed (rule 4), then the mark its own change.
    expect(changes.map(c => [c.key, c.seq, c.view])).toEqual([['test/m', 3, 1], ['test/m', m.seq, 2]])
    expect(p.snapshot(s).asOfSeq).toBe(s.seq - 1)
    // A rebuild refolds the log: the same one call per mark.
    p.rebuild(s)
    expect(p.stateOf(s, 'test/m')).toBe(2)
    expect(calls).toEqual([1, m.seq, 1, m.seq])
    // foldProjection applies the same rule.
    const folded: number[] = []
    expect(foldProjection(countedM(folded), s.events)).toBe(2)
    expect(folded).toEqual([1, m.seq])
  })

  it('L-202 a unit naming its types beside one that folds every event: the second still sees every event, each once', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const p = app.sessionProjections
    const calls: number[] = []
    p.register(countedM(calls))
    const every: number[] = []
    const list = seqList()
    p.register({ ...list, apply: (st, e) => (every.push(e.seq), list.apply(st, e)) })
    const s = app.sessions.create(sid('s'))
    appendAs(s, 'test/other')
    mark(s)
    appendAs(s, 'test/other')
    mark(s)
    expect(p.snapshot(s).values).toEqual({ 'test/m': 2, 'test/seqs': [1, 3] })
    expect(calls).toEqual([1, 3])
    expect(every).toEqual([0, 1, 2, 3])
    p.rebuild(s)
    expect(p.snapshot(s).values).toEqual({ 'test/m': 2, 'test/seqs': [1, 3] })
    expect(every).toEqual([0, 1, 2, 3, 0, 1, 2, 3])
  })

  it('L-203 eventTypes that is not an array of non-empty strings → INVALID_DEFINITION; the key stays free', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const m = unitM()
    const message = 'invalid projection definition test/m: eventTypes must be an array of event type names when present'
    for (const eventTypes of ['test/mark', [MARK, ''], [MARK, 1], null, { 0: MARK, length: 1 }]) {
      const error = thrown(() => app.sessionProjections.register({ ...m, eventTypes } as never))
      expect(error).toMatchObject({ name: 'ProjectionError', code: 'INVALID_DEFINITION', message })
    }
    // The types are captured at registration: changing the caller's array later changes nothing.
    const types = [MARK]
    app.sessionProjections.register({ ...m, eventTypes: types })
    types.push('test/other')
    const s = app.sessions.create(sid('s'))
    appendAs(s, 'test/other')
    mark(s)
    expect(app.sessionProjections.stateOf(s, 'test/m')).toBe(1)
  })
})

type Op =
  | { kind: 'turn'; calls: number } | { kind: 'chunks'; n: number } | { kind: 'todo' } | { kind: 'prompt'; text: string }
  | { kind: 'title'; text: string } | { kind: 'compaction'; failed: boolean } | { kind: 'mark' } | { kind: 'other' }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.integer({ min: 0, max: 2 }).map<Op>(calls => ({ kind: 'turn', calls })),
  fc.integer({ min: 1, max: 4 }).map<Op>(n => ({ kind: 'chunks', n })),
  fc.constant<Op>({ kind: 'todo' }),
  fc.string({ maxLength: 20 }).map<Op>(text => ({ kind: 'prompt', text })),
  fc.string({ maxLength: 8 }).map<Op>(text => ({ kind: 'title', text })),
  fc.boolean().map<Op>(failed => ({ kind: 'compaction', failed })),
  fc.constant<Op>({ kind: 'mark' }),
  fc.constant<Op>({ kind: 'other' }),
)

function play(s: Session, ops: readonly Op[]): void {
  let turns = 0
  let calls = 0
  for (const o of ops) {
    switch (o.kind) {
      case 'turn': turn(s, ++turns, Array.from({ length: o.calls }, () => `c${++calls}`)); break
      case 'chunks':
        for (let i = 0; i < o.n; i++) s.append('assistant/chunk', { turn: turns + 1, step: 1, chunk: { type: 'text-delta', index: 0, text: `t${i}` } })
        break
      case 'todo': s.append('todo/write', { todos: [{ content: `t${s.seq}`, status: 'pending' as const }] }); break
      case 'prompt': s.append('user/message', userMsg(`p${s.seq}`, o.text === '' ? ' ' : o.text), { surfaceOp: 'append' }); break
      case 'title': appendTitle(s, o.text); break
      case 'compaction': appendAs(s, 'compaction/end', o.failed ? { error: { message: 'x' } } : {}); break
      case 'mark': mark(s); break
      case 'other': appendAs(s, 'test/other'); break
    }
  }
}

const BUILTINS = [statsProjection, todosProjection, titleProjection] as readonly ProjectionDefinition[]

describe('the built-in units name every type they fold (03 §1.5)', () => {
  it('L-204 on random logs each built-in returns the same state for every other type, and folds as it would with no eventTypes', async () => {
    const { app } = await makeApp(NO_BUILTINS, a => { a.sessions.registerEventType('compaction/end') })
    let n = 0
    await fc.assert(fc.property(fc.array(op, { maxLength: 30 }), ops => {
      const s = app.sessions.create(sid(`b${++n}`))
      play(s, ops)
      const events: readonly SessionEvent[] = s.events
      for (const def of BUILTINS) {
        const types = new Set(def.eventTypes)
        expect(types.size).toBeGreaterThan(0)
        let state = def.init()
        for (const event of events) {
          const next = def.apply(state, event)
          if (!types.has(event.type)) expect(next).toBe(state)
          state = next
        }
        const { eventTypes: _types, ...everyEvent } = def
        expect(foldProjection(def, events)).toEqual(foldProjection(everyEvent, events))
      }
    }), { numRuns: 80 })
  })
})
