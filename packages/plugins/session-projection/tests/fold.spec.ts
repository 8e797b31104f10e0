import { SessionId, type Session } from '@logbook/session'
import MemorySessionPersistence from '@logbook/session-persistence'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendTitle, foldProjection, statsProjection, titleProjection, todosProjection } from '../src/index.ts'
import { appendAs, makeApp, mark, MARK, sid, turn, unitM, userMsg } from './helpers.ts'

type Op =
  | { kind: 'mark' } | { kind: 'other' } | { kind: 'turn'; calls: number } | { kind: 'todo'; n: number }
  | { kind: 'prompt'; text: string } | { kind: 'title'; text: string }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'mark' }),
  fc.constant<Op>({ kind: 'other' }),
  fc.integer({ min: 0, max: 3 }).map<Op>(calls => ({ kind: 'turn', calls })),
  fc.integer({ min: 0, max: 3 }).map<Op>(n => ({ kind: 'todo', n })),
  fc.string({ maxLength: 80 }).map<Op>(text => ({ kind: 'prompt', text })),
  fc.string({ maxLength: 10 }).map<Op>(text => ({ kind: 'title', text })),
)

function play(s: Session, ops: readonly Op[]): void {
  let turns = 0
  let calls = 0
  for (const o of ops) {
    switch (o.kind) {
      case 'mark': mark(s); break
      case 'other': appendAs(s, 'test/other'); break
      case 'turn': turn(s, ++turns, Array.from({ length: o.calls }, () => `c${++calls}`)); break
      case 'todo': s.append('todo/write', { todos: Array.from({ length: o.n }, (_, i) => ({ content: `t${i}`, status: 'pending' as const })) }); break
      case 'prompt': s.append('user/message', userMsg(`p${s.seq}`, o.text === '' ? ' ' : o.text), { surfaceOp: 'append' }); break
      case 'title': appendTitle(s, o.text); break
    }
  }
}

describe('foldProjection and determinism (03 §1.3 rule 9, §1.6)', () => {
  it('L-016 foldProjection(def, S.events) deep-equals the live state, for random logs and every built-in', async () => {
    const { app } = await makeApp()
    let n = 0
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 25 }), fc.boolean(), async (ops, readEarly) => {
      const s = app.sessions.create(sid(`p${++n}`))
      if (readEarly) app.sessionProjections.snapshot(s)
      play(s, ops)
      const p = app.sessionProjections
      expect(p.stateOf(s, 'stats')).toEqual(foldProjection(statsProjection, s.events))
      expect(p.stateOf(s, 'todos')).toEqual(foldProjection(todosProjection, s.events))
      expect(p.stateOf(s, 'title')).toEqual(foldProjection(titleProjection, s.events))
      // Every state a built-in reaches is one its stateSchema accepts, so its checkpoint rows stay usable.
      for (const def of [statsProjection, todosProjection, titleProjection]) {
        expect(def.stateSchema['~standard'].validate(JSON.parse(JSON.stringify(p.stateOf(s, def.key))))).not.toHaveProperty('issues')
      }
    }), { numRuns: 60 })
  })

  it('foldProjection applies the registry rules: validation, frozen states, same reference, thenables refused', () => {
    const m = unitM()
    expect(() => foldProjection({ ...m, key: 'a b' }, [])).toThrow(expect.objectContaining({ code: 'INVALID_DEFINITION' }))
    const events = [{ type: MARK, seq: 0, time: 0, data: {} }, { type: 'x/y', seq: 1, time: 0, data: {} }] as never[]
    expect(foldProjection(m, events)).toBe(1)
    const initial = { list: [] as number[] }
    const state = foldProjection({ key: m.key, stateVersion: 1, stateSchema: m.stateSchema, init: () => initial, apply: s => s }, events)
    expect(state).toBe(initial)
    expect(Object.isFrozen(initial) && Object.isFrozen(initial.list)).toBe(true)
    expect(() => foldProjection({ ...m, apply: async () => 1 } as never, events)).toThrow('unit test/m returned a Promise')
  })

  it('L-015 a resumed session with a 100-event seed: the first snapshot reflects all 100 events', async () => {
    const storeName = `projection-resume-${Math.random()}`
    {
      let fiber: { dispose(): Promise<void> } | undefined
      const { app } = await makeApp({ checkpoint: { enabled: false } }, async root => {
        fiber = await root.plugin(MemorySessionPersistence, { storeName })
      })
      const s = app.sessions.create(sid('r'))
      for (let i = 0; i < 100; i++) mark(s)
      await app.sessions.flush(s)
      await fiber!.dispose() // releases the lock, as a process exit would
    }
    const { app } = await makeApp({}, async root => {
      await root.plugin(MemorySessionPersistence, { storeName })
    })
    app.sessionProjections.register(unitM())
    // The resume protocol of 02 §4.3 (no open turn, so no closers).
    const handle = await app.sessionPersistence.open('r', 'write')
    const events = await handle.read(0)
    expect(events).toHaveLength(100)
    const session = app.sessions.prepare(SessionId('r'), {
      seed: events, meta: handle.header, inheritedEventCount: handle.inheritedEventCount, eventState: handle.eventState,
    })
    handle.handOff()
    app.sessions.enter(session)
    app.sessions.announce(session)
    expect(app.sessionProjections.snapshot(session)).toMatchObject({ asOfSeq: 100, values: { 'test/m': 100 } })
    expect(session.events[100]!.type).toBe('session/end-seed')
  })
})
