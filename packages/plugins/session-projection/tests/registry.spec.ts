import type { Context } from '@deepseek-ai/cordis'
import Schema from '@deepseek-ai/schemastery'
import { describe, expect, it } from 'vitest'
import type { ProjectionChange, ProjectionDefinition } from '../src/index.ts'
import { appendAs, collect, makeApp, mark, MARK, NO_BUILTINS, seqList, sid, thrown, unitM } from './helpers.ts'

describe('registry: register, stateOf, snapshot (03 §1.2)', () => {
  it('L-001 unit M counts marks; snapshot.asOfSeq is the last seq; an empty session gives asOfSeq −1 and view(init())', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const p = app.sessionProjections
    p.register(unitM())
    const s = app.sessions.create(sid('s'))
    const empty = app.sessions.create(sid('e'))
    mark(s)
    const last = mark(s)
    expect(p.stateOf(s, 'test/m')).toBe(2)
    expect(p.snapshot(s)).toEqual({ sessionId: 's', asOfSeq: last.seq, values: { 'test/m': 2 }, faults: {} })
    expect(last.seq).toBe(1)
    expect(p.snapshot(empty)).toEqual({ sessionId: 'e', asOfSeq: -1, values: { 'test/m': 0 }, faults: {} })
  })

  it('L-002 marks appended before register are folded on the first stateOf; later marks continue live, each applied once', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const s = app.sessions.create(sid('s'))
    mark(s)
    mark(s)
    mark(s)
    const seen: number[] = []
    const m = unitM()
    app.sessionProjections.register({ ...m, apply: (n, e) => (seen.push(e.seq), m.apply(n, e)) })
    expect(seen).toEqual([])
    expect(app.sessionProjections.stateOf(s, 'test/m')).toBe(3)
    mark(s)
    appendAs(s, 'test/other')
    expect(app.sessionProjections.stateOf(s, 'test/m')).toBe(4)
    expect(seen).toEqual([0, 1, 2, 3, 4])
  })

  it('L-003 onChanged: a mark then an unrelated event give exactly one call with the mark’s seq and view; sessions are independent', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    app.sessionProjections.register(unitM())
    const changes = collect(app)
    const s = app.sessions.create(sid('s'))
    const t = app.sessions.create(sid('t'))
    const e = mark(s)
    appendAs(s, 'test/other')
    expect(changes.map(c => [c.session.id, c.key, c.view, c.seq])).toEqual([['s', 'test/m', 1, e.seq]])
    expect(changes[0]!.session).toBe(s)
    appendAs(t, 'test/other')
    const f = mark(t)
    expect(changes.map(c => [c.session.id, c.view, c.seq])).toEqual([['s', 1, 0], ['t', 1, f.seq]])
    expect(app.sessionProjections.stateOf(s, 'test/m')).toBe(1)
  })

  it('L-004 a unit without view: stateOf works, absent from snapshot.values, never notified', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const { view: _view, ...hostOnly } = unitM('test/host')
    app.sessionProjections.register(hostOnly)
    const changes = collect(app)
    const s = app.sessions.create(sid('s'))
    mark(s)
    mark(s)
    expect(app.sessionProjections.stateOf(s, 'test/host')).toBe(2)
    expect(app.sessionProjections.snapshot(s)).toEqual({ sessionId: 's', asOfSeq: 1, values: {}, faults: {} })
    expect(changes).toEqual([])
  })

  it('L-005 the same key registered twice (same object, same or other version) → DUPLICATE_KEY; the first keeps serving', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const m = unitM()
    app.sessionProjections.register(m)
    for (const def of [m, unitM(), unitM('test/m', 2)]) {
      const error = thrown(() => app.sessionProjections.register(def))
      expect(error).toMatchObject({ name: 'ProjectionError', code: 'DUPLICATE_KEY', message: 'projection key test/m is already registered' })
    }
    const s = app.sessions.create(sid('s'))
    mark(s)
    expect(app.sessionProjections.snapshot(s).values).toEqual({ 'test/m': 1 })
  })

  it('L-006 stateVersion −1, 1.5 or "1"; key "" or "a b"; bad functions or schema → INVALID_DEFINITION', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const m = unitM()
    const cases: [unknown, string][] = [
      [{ ...m, stateVersion: -1 }, 'invalid projection definition test/m: stateVersion must be a non-negative safe integer, got -1'],
      [{ ...m, stateVersion: 1.5 }, 'invalid projection definition test/m: stateVersion must be a non-negative safe integer, got 1.5'],
      [{ ...m, stateVersion: '1' }, 'invalid projection definition test/m: stateVersion must be a non-negative safe integer, got "1"'],
      [{ ...m, key: '' }, 'invalid projection definition : key must match ^[A-Za-z][A-Za-z0-9._/-]{0,63}$'],
      [{ ...m, key: 'a b' }, 'invalid projection definition a b: key must match ^[A-Za-z][A-Za-z0-9._/-]{0,63}$'],
      [{ ...m, key: `a${'b'.repeat(64)}` }, `invalid projection definition a${'b'.repeat(64)}: key must match ^[A-Za-z][A-Za-z0-9._/-]{0,63}$`],
      [{ ...m, stateSchema: {} }, 'invalid projection definition test/m: stateSchema must be a Standard Schema v1'],
      [{ ...m, init: 0 }, 'invalid projection definition test/m: init must be a function'],
      [{ ...m, apply: undefined }, 'invalid projection definition test/m: apply must be a function'],
      [{ ...m, view: 'v' }, 'invalid projection definition test/m: view must be a function when present'],
      [null, 'invalid projection definition undefined: the definition must be an object'],
    ]
    for (const [def, message] of cases) {
      const error = thrown(() => app.sessionProjections.register(def as ProjectionDefinition))
      expect(error).toMatchObject({ name: 'ProjectionError', code: 'INVALID_DEFINITION', message })
    }
    // Nothing was registered: the valid key is still free.
    expect(() => app.sessionProjections.register({ ...m, key: `a${'b'.repeat(63)}` })).not.toThrow()
    expect(() => app.sessionProjections.register(m)).not.toThrow()
  })

  it('L-007 dispose then register again → the state is refolded from the log, deep-equal to before', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const dispose = app.sessionProjections.register(seqList())
    const s = app.sessions.create(sid('s'))
    mark(s)
    appendAs(s, MARK)
    const before = app.sessionProjections.stateOf(s, 'test/seqs')
    expect(before).toEqual({ seqs: [0, 1] })
    await dispose()
    expect(app.sessionProjections.stateOf(s, 'test/seqs')).toBeUndefined()
    mark(s)
    app.sessionProjections.register(seqList())
    const after = app.sessionProjections.stateOf(s, 'test/seqs')
    expect(after).toEqual({ seqs: [0, 1, 2] })
    app.sessionProjections.rebuild(s)
    expect(app.sessionProjections.stateOf(s, 'test/seqs')).toEqual(after)
    expect(app.sessionProjections.stateOf(s, 'test/seqs')).not.toBe(after)
  })

  it('L-008 unloading the registering plugin removes its key from snapshot and stops its onChanged listener', async () => {
    const { app } = await makeApp(NO_BUILTINS)
    const changes: ProjectionChange[] = []
    const plugin = {
      name: 'test-plugin',
      inject: ['sessionProjections'],
      apply(ctx: Context) {
        ctx.sessionProjections.register(unitM())
        ctx.sessionProjections.onChanged(change => changes.push(change))
      },
    }
    const fiber = app.plugin(plugin)
    await fiber
    app.sessionProjections.register(unitM('test/kept'))
    const s = app.sessions.create(sid('s'))
    mark(s)
    expect(changes.map(c => c.key)).toEqual(['test/m', 'test/kept'])
    await fiber.dispose()
    mark(s)
    expect(changes).toHaveLength(2)
    expect(app.sessionProjections.snapshot(s).values).toEqual({ 'test/kept': 2 })
  })
})
