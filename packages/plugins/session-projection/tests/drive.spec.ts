import Schema from '@deepseek-ai/schemastery'
import type { Session, SessionEvent } from '@logbook/session'
import { describe, expect, it } from 'vitest'
import { foldProjection, type ProjectionChange, type ProjectionDefinition } from '../src/index.ts'
import { appendAs, collect, makeApp, mark, NO_BUILTINS, seqList, sid, unitM } from './helpers.ts'

describe('registry: containment and immutability (03 §1.3 rules 6, 8)', () => {
  function failingAt(seq: number, key = 'test/a'): ProjectionDefinition<number, number> & { fail: boolean } {
    const def = {
      fail: true, key, stateVersion: 1, stateSchema: Schema.natural(),
      init: () => 0,
      apply(n: number, e: SessionEvent) {
        if (def.fail && e.seq === seq) throw new Error('boom')
        return n + 1
      },
      view: (n: number) => n,
    }
    return def
  }

  it('L-009 unit A throws at seq 5; B registered after A sees every event; faults.A = {seq 5, apply}; one warning in total', async () => {
    const { app, logs } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register(failingAt(5))
    const seen: number[] = []
    app.sessionProjections.register({ ...unitM('test/b'), apply: (n, e) => (seen.push(e.seq), n + 1) })
    const s = app.sessions.create(sid('s'))
    for (let i = 0; i < 8; i++) mark(s)
    const snap = app.sessionProjections.snapshot(s)
    expect(snap.faults).toEqual({ 'test/a': { seq: 5, phase: 'apply', message: 'boom' } })
    expect(snap.values).toEqual({ 'test/b': 8 })
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(app.sessionProjections.stateOf(s, 'test/a')).toBeUndefined()
    app.sessionProjections.snapshot(s)
    expect(logs.filter(l => l.includes('projection'))).toEqual([
      expect.stringContaining('projection test/a failed at seq 5 of session s: boom'),
    ])
  })

  it('L-010 once A succeeds, rebuild(S, "A") clears the fault; the value equals a fresh fold', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const a = failingAt(2)
    app.sessionProjections.register(a)
    const s = app.sessions.create(sid('s'))
    for (let i = 0; i < 4; i++) mark(s)
    expect(app.sessionProjections.snapshot(s).faults['test/a']).toMatchObject({ seq: 2, phase: 'apply' })
    a.fail = false
    mark(s)
    expect(app.sessionProjections.snapshot(s).faults['test/a']).toBeDefined()
    app.sessionProjections.rebuild(s, 'test/a')
    const snap = app.sessionProjections.snapshot(s)
    expect(snap.faults).toEqual({})
    expect(snap.values['test/a']).toBe(foldProjection(a, s.events))
    expect(snap.values['test/a']).toBe(5)
  })

  it('L-011 apply returning a Promise faults the unit with "returned a Promise"', async () => {
    const { app, logs } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register({ ...unitM('test/p'), apply: async (n: number) => n + 1 } as unknown as ProjectionDefinition)
    const s = app.sessions.create(sid('s'))
    mark(s)
    expect(app.sessionProjections.snapshot(s).faults).toEqual({
      'test/p': { seq: 0, phase: 'apply', message: 'unit test/p returned a Promise' },
    })
    expect(logs.join('\n')).toContain('projection test/p failed at seq 0 of session s: unit test/p returned a Promise')
  })

  it('L-012 a throwing view is a view fault: the state advances, no notice, and the next successful view clears it', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    let broken = true
    app.sessionProjections.register({ ...unitM(), view: n => { if (broken) throw new Error('no view'); return n } })
    const changes = collect(app)
    const s = app.sessions.create(sid('s'))
    mark(s)
    mark(s)
    expect(app.sessionProjections.snapshot(s)).toEqual({
      sessionId: 's', asOfSeq: 1, values: {}, faults: { 'test/m': { seq: 1, phase: 'view', message: 'no view' } },
    })
    expect(app.sessionProjections.stateOf(s, 'test/m')).toBe(2)
    expect(changes).toEqual([])
    broken = false
    expect(app.sessionProjections.snapshot(s)).toEqual({ sessionId: 's', asOfSeq: 1, values: { 'test/m': 2 }, faults: {} })
    mark(s)
    expect(changes.map(c => [c.view, c.seq])).toEqual([[3, 2]])
  })

  it('L-013 a session/event listener running before the registry sees a snapshot as of that event; M counts it once', async () => {
    const snaps: { asOfSeq: number; m: unknown }[] = []
    let seq = -1
    const { app } = await makeApp(NO_BUILTINS, root => {
      root.on('session/event', (session: Session, event: SessionEvent) => {
        seq = event.seq
        const snap = root.sessionProjections.snapshot(session)
        snaps.push({ asOfSeq: snap.asOfSeq, m: snap.values['test/m'] })
      })
    })
    const changes = collect(app)
    app.sessionProjections.register(unitM())
    const s = app.sessions.create(sid('s'))
    mark(s)
    mark(s)
    expect(snaps).toEqual([{ asOfSeq: 0, m: 1 }, { asOfSeq: 1, m: 2 }])
    expect(seq).toBe(1)
    expect(app.sessionProjections.stateOf(s, 'test/m')).toBe(2)
    expect(changes.map(c => [c.view, c.seq])).toEqual([[1, 0], [2, 1]])
  })

  it('L-014 a unit mutating its input state is faulted: stored states are frozen', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register({
      key: 'test/mut', stateVersion: 1, stateSchema: Schema.object({ n: Schema.natural() }),
      init: () => ({ n: 0 }),
      apply: (s: { n: number }) => { s.n += 1; return s },
      view: (s: { n: number }) => s.n,
    })
    const s = app.sessions.create(sid('s'))
    mark(s)
    const fault = app.sessionProjections.snapshot(s).faults['test/mut']
    expect(fault).toMatchObject({ seq: 0, phase: 'apply' })
    expect(fault!.message).toMatch(/read only|read-only/)
  })

  it('new states are deep-frozen; an unhandled event keeps the same reference', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register(seqList())
    const s = app.sessions.create(sid('s'))
    mark(s)
    const state = app.sessionProjections.stateOf(s, 'test/seqs') as { seqs: number[] }
    expect(Object.isFrozen(state) && Object.isFrozen(state.seqs)).toBe(true)
    appendAs(s, 'test/other', {}, { ignorable: true })
    expect(app.sessionProjections.stateOf(s, 'test/seqs')).toBe(state)
  })
})

describe('registry: drive and notices (03 §1.3 rules 3–5)', () => {
  it('seed events are not notified one by one: the first live event reports the change they caused', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register(unitM())
    const changes = collect(app)
    const seed = app.sessions.create(sid('seed'))
    mark(seed)
    mark(seed)
    mark(seed)
    changes.length = 0
    const s = app.sessions.create(sid('s'), { seed: [...seed.events] })
    expect(changes).toEqual([])
    appendAs(s, 'test/mark')
    expect(changes.map(c => [c.session.id, c.view, c.seq])).toEqual([['s', 4, 3]])
  })

  it('notices go units first, then listeners, in registration order; a throwing listener is contained', async () => {
    const { app, logs } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register(unitM('test/one'))
    app.sessionProjections.register(unitM('test/two'))
    const order: string[] = []
    app.sessionProjections.onChanged(c => { order.push(`L1 ${c.key}`); throw new Error('listener broke') })
    app.sessionProjections.onChanged(c => { order.push(`L2 ${c.key}`) })
    const s = app.sessions.create(sid('s'))
    mark(s)
    expect(order).toEqual(['L1 test/one', 'L2 test/one', 'L1 test/two', 'L2 test/two'])
    expect(logs.filter(l => l.includes('onChanged listener threw: listener broke'))).toHaveLength(2)
  })

  it('an onChanged disposer stops its listener; stateOf of an unknown key is undefined', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register(unitM())
    const changes: ProjectionChange[] = []
    const stop = app.sessionProjections.onChanged(c => changes.push(c))
    const s = app.sessions.create(sid('s'))
    mark(s)
    await stop()
    mark(s)
    expect(changes).toHaveLength(1)
    expect(app.sessionProjections.stateOf(s, 'nope')).toBeUndefined()
  })

  it('an init that throws faults the cell before the first event (seq −1)', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register({ ...unitM('test/i'), init: () => { throw new Error('no init') } })
    const s = app.sessions.create(sid('s'))
    expect(app.sessionProjections.snapshot(s).faults).toEqual({ 'test/i': { seq: -1, phase: 'apply', message: 'no init' } })
  })
})
