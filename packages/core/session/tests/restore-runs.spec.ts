/**
 * Restore of decoded chunk rows (01 §5.1 detached / shared-frozen, §5.2, §10) and the closers' last-boundary scan
 * (01 §8): members built by `decodeStorageRecord` are admitted a row at a time, with exactly the results and errors
 * of the per-event path.
 */
import { describe, expect, it } from 'vitest'
import {
  decodeStorageRecord, deepFreeze, openTurnClosers, Session, type SessionEvent, type SessionHeader, type SessionSeedEventState,
} from '../src/index.ts'
import { ev, sid, thrown } from './harness.ts'

const header = { version: 1, id: 'r', createdAt: 5 } as unknown as SessionHeader
const restore = (seed: readonly unknown[], eventState: SessionSeedEventState = 'detached') =>
  Session.fromRestore(sid('r'), { seed: seed as SessionEvent[], header, inheritedEventCount: 0, eventState })
const opening = (): SessionEvent[] => [ev('turn/start', 0, { turn: 1 }), ev('step/start', 1, { turn: 1, step: 1 })]
const textRow = (seq0: number, over: Record<string, unknown> = {}, time0: unknown = 10) => ({
  type: 'text-chunks', seq0, time0, data: { turn: 1, step: 1, index: 0, dt: [3, 4], texts: ['a', 'b', 'c'], ...over },
})
/** The same events as plain unfrozen copies (structuredClone keeps -0), which take the per-event path. */
const copies = (events: readonly unknown[]) => events.map(e => structuredClone(e))

describe('restoring decoded chunk rows', () => {
  it('admits decoded members like the same events parsed from JSON, keeping the very member objects', () => {
    const members = decodeStorageRecord(textRow(2))
    const seed = [...opening(), ...members, ev('step/end', 5, { turn: 1, step: 1 })]
    const fast = restore(seed)
    const slow = restore(copies(seed))
    expect(fast.events.slice(0, -1)).toEqual(slow.events.slice(0, -1)) // the {} markers differ only in time
    expect(fast.events.slice(2, 5).every((e, i) => e === members[i])).toBe(true)
    expect(fast.events.every(e => Object.isFrozen(e) && Object.isFrozen(e.data))).toBe(true)
    expect(fast.deriveMessages()).toEqual(slow.deriveMessages())
    expect(restore([...opening().map(e => deepFreeze(e)), ...decodeStorageRecord(textRow(2))], 'shared-frozen').seq).toBe(6)
  })

  it('reports a member time below zero at that member, after admitting the members before it', () => {
    const seed = [...opening(), ...decodeStorageRecord(textRow(2, { dt: [-5, -10] }, 12))]
    const expected = { code: 'INVALID_EVENT', index: 4, message: 'seed event at index 4: invalid envelope: time must be a non-negative safe integer' }
    expect(thrown(() => restore(seed))).toMatchObject(expected)
    expect(thrown(() => restore(copies(seed)))).toMatchObject(expected)
  })

  it('reports -0 in a shared number as NOT_JSON at the first member, like a parsed -0', () => {
    const seed = [...opening(), ...decodeStorageRecord(textRow(2, { index: -0 }))]
    expect(thrown(() => restore(seed))).toMatchObject({ code: 'NOT_JSON', index: 2, message: 'seed event at index 2: is not lossless JSON' })
    expect(thrown(() => restore(copies(seed)))).toMatchObject({ code: 'NOT_JSON', index: 2 })
  })

  it('reports an invalid shared payload or a wrong first seq at the first member', () => {
    const payload = [...opening(), ...decodeStorageRecord(textRow(2, { turn: 0 }))]
    const a = thrown(() => restore(payload))
    expect(a).toMatchObject({ code: 'INVALID_EVENT', index: 2 })
    expect(a).toEqual(thrown(() => restore(copies(payload))))
    const gap = [...opening(), ...decodeStorageRecord(textRow(3))]
    expect(thrown(() => restore(gap))).toMatchObject({
      code: 'INVALID_SEED', index: 2, message: 'seed event at index 2: has seq 3; seed must be contiguous from 0',
    })
  })

  it('admits members handed apart from their row (a copy in between, or a cut run) one by one', () => {
    const members = decodeStorageRecord(textRow(2))
    const mixed = [...opening(), members[0]!, structuredClone(members[1]!), members[2]!]
    expect(restore(mixed).events.slice(0, -1)).toEqual(restore(copies(mixed)).events.slice(0, -1))
    const edited = decodeStorageRecord(textRow(2))
    const bad = structuredClone(edited[1]!) as unknown as { data: { chunk: { text: unknown } } }
    bad.data.chunk.text = 5
    edited[1] = bad as unknown as SessionEvent // an edit of the returned array is not trusted
    expect(thrown(() => restore([...opening(), ...edited]))).toMatchObject({ code: 'INVALID_EVENT', index: 3 })
    const cut = [...opening(), ...decodeStorageRecord(textRow(2)).slice(0, 2)]
    expect(restore(cut).seq).toBe(5) // 4 events and the {} marker
  })
})

describe('openTurnClosers scans back to the last turn boundary', () => {
  const end = (seq: number) => ev('turn/end', seq, { turn: 1, reason: { kind: 'completed' } })
  it('ignores an unclosed step and pending calls before a turn/end, and anything before the last turn/start', () => {
    const closed = [...opening(), end(2), ev('step/start', 3, { turn: 2, step: 1 })]
    expect(openTurnClosers(closed, { kind: 'interrupted' })).toEqual([])
    const reopened = [...opening(), ev('turn/start', 2, { turn: 2 })]
    expect(openTurnClosers(reopened, { kind: 'interrupted' })).toEqual([
      ev('turn/end', 3, { turn: 2, reason: { kind: 'interrupted' } }, {}, 100),
    ])
    expect(openTurnClosers([ev('step/start', 0, { turn: 1, step: 1 })], { kind: 'forked' })).toEqual([])
  })
})
