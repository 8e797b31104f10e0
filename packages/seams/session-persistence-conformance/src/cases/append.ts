/** `handle.append` (spec 02 §1.2): P-009–P-016. */

import { expect, it } from 'vitest'
import type { SessionEvent } from '@logbook/session'
import { useHarness } from '../harness.ts'
import { completeTurn, event, header, userMessage } from '../events.ts'
import { expectLossless, expectUnchanged, rejects, storedState } from '../expect.ts'
import type { ConformanceOptions } from '../types.ts'

/** An ignorable plugin event whose data is `value` (so only the lossless check can refuse it). */
const note = (seq: number, value: unknown): SessionEvent =>
  ({ type: 'conformance/note', seq, time: 1_750_000_000_000 + seq, data: { value }, ignorable: true }) as unknown as SessionEvent

/** Register the `append` cases. */
export function appendCases(options: ConformanceOptions): void {
  const h = useHarness(options)

  it('P-009 a first seq other than nextSeq is SESSION_CONFLICT {index 0, expected, actual}; storage unchanged', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const before = await storedState(m, 's1')
    const handle = await m.persistence.open('s1', 'write')
    const error = await rejects(handle.append(completeTurn(7, 2)), 'SESSION_CONFLICT')
    expect(error.details).toMatchObject({ index: 0, expected: 6, actual: 7 })
    expect(handle.nextSeq).toBe(6)
    expect(handle.revision).toBe(before.revision)
    await handle.close()
    await expectUnchanged(m, 's1', before)
  })

  it('P-010 a batch 6, 8 is SESSION_CONFLICT {index 1} and stores nothing; re-appending 0..5 is SESSION_CONFLICT', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const before = await storedState(m, 's1')
    const handle = await m.persistence.open('s1', 'write')
    const gap = await rejects(handle.append([event('turn/start', 6, { turn: 2 }), userMessage(8)]), 'SESSION_CONFLICT')
    expect(gap.details).toMatchObject({ index: 1, expected: 7, actual: 8 })
    await expectUnchanged(m, 's1', before)
    const replay = await rejects(handle.append(completeTurn(0, 1)), 'SESSION_CONFLICT')
    expect(replay.details).toMatchObject({ index: 0, expected: 6, actual: 0 })
    await expectUnchanged(m, 's1', before)
    // The handle is still usable at its cursor.
    await handle.append(completeTurn(6, 2))
    await handle.close()
    expect((await storedState(m, 's1')).events).toHaveLength(12)
  })

  it('P-011 append([]) resolves without changing the revision; on a create handle nothing is materialised', async () => {
    const m = await h.mount()
    const created = await m.persistence.create(header('s1'))
    await created.append([])
    expect(created.revision).toBeNull()
    expect(created.nextSeq).toBe(0)
    await created.close()
    await rejects(m.persistence.open('s1', 'read'), 'SESSION_NOT_FOUND')
    expect((await m.persistence.list()).items).toEqual([])
    await m.store('s2', completeTurn(0, 1))
    const before = await storedState(m, 's2')
    const handle = await m.persistence.open('s2', 'write')
    const committed = m.committed.length
    const result = await handle.append([])
    expect(result).toEqual({ nextSeq: 6, revision: before.revision })
    expect(m.committed.length).toBe(committed)
    await handle.close()
    await expectUnchanged(m, 's2', before)
  })

  it('P-012 data holding BigInt, undefined, NaN, a cycle or a Map is INVALID_ARGUMENT naming seq and type; unchanged', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const before = await storedState(m, 's1')
    const handle = await m.persistence.open('s1', 'write')
    const cycle: Record<string, unknown> = {}
    cycle['self'] = cycle
    for (const bad of [10n, undefined, Number.NaN, cycle, new Map([['k', 1]])]) {
      const error = await rejects(handle.append([note(6, bad)]), 'INVALID_ARGUMENT')
      expect(error.message).toContain('conformance/note')
      expect(error.message).toContain('6')
    }
    // A later bad event names its own index and seq; the good ones before it are not stored either.
    const error = await rejects(handle.append([note(6, 1), note(7, 2n)]), 'INVALID_ARGUMENT')
    expect(error.message).toContain('7')
    expect(handle.nextSeq).toBe(6)
    await handle.close()
    await expectUnchanged(m, 's1', before)
  })

  it('P-013 unknown non-ignorable types and the row tag text-chunks are INVALID_ARGUMENT; an ignorable unknown type is stored verbatim', async () => {
    const m = await h.mount()
    await m.store('s1', completeTurn(0, 1))
    const before = await storedState(m, 's1')
    const handle = await m.persistence.open('s1', 'write')
    await rejects(handle.append([event('future/event', 6, { x: 1 })]), 'INVALID_ARGUMENT')
    await rejects(handle.append([event('text-chunks', 6, { x: 1 })]), 'INVALID_ARGUMENT')
    await rejects(handle.append([{ type: 'text-chunks', seq0: 6, time0: 1, data: { turn: 1, step: 1, index: 0, dt: [0, 0], texts: ['a', 'b', 'c'] } } as unknown as SessionEvent]), 'INVALID_ARGUMENT')
    await expectUnchanged(m, 's1', before)
    const verbatim = event('future/event', 6, { nested: { b: [1, 'two', null], a: true } }, { ignorable: true })
    await handle.append([verbatim])
    await handle.close()
    const stored = await m.persistence.readFrom('s1', 6)
    expectLossless(stored, [verbatim])
    expect(Object.keys(stored[0]!)).toEqual(['type', 'seq', 'time', 'data', 'ignorable'])
  })

  it('P-014 mutating an event right after calling append has no effect on what is stored', async () => {
    const m = await h.mount()
    const handle = await m.persistence.create(header('s1'))
    const events = completeTurn(0, 1) as unknown as Record<string, unknown>[]
    const original = JSON.parse(JSON.stringify(events)) as unknown
    const pending = handle.append(events as unknown as SessionEvent[])
    const first = events[0] as { data: { turn: number }; time: number }
    first.data.turn = 99
    first.time = 5
    events[1]!['type'] = 'turn/end'
    events.length = 2
    await pending
    await handle.close()
    expectLossless(await m.persistence.readFrom('s1', 0), original)
  })

  it('P-015 un-awaited appends resolve in call order; one starting at a stale seq is SESSION_CONFLICT', async () => {
    const m = await h.mount()
    const handle = await m.persistence.create(header('s1'))
    const turn = completeTurn(0, 1)
    const order: string[] = []
    const a = handle.append(turn.slice(0, 3)).then(r => { order.push('a'); return r })
    const b = handle.append(turn.slice(3, 5)).then(r => { order.push('b'); return r })
    const c = handle.append(turn.slice(3, 5)).then(() => order.push('c'), (e: unknown) => { order.push('c-rejected'); throw e })
    const [ra, rb] = await Promise.all([a, b])
    const error = await rejects(c, 'SESSION_CONFLICT')
    expect(error.details).toMatchObject({ index: 0, expected: 5, actual: 3 })
    expect(order).toEqual(['a', 'b', 'c-rejected'])
    expect(ra.nextSeq).toBe(3)
    expect(rb.nextSeq).toBe(5)
    expect(ra.revision).not.toBe(rb.revision)
    await handle.close()
    expectLossless(await m.persistence.readFrom('s1', 0), turn.slice(0, 5))
  })

  it('P-016 the revision changes with every append and is stable across repeated inspect', async () => {
    const m = await h.mount()
    const handle = await m.persistence.create(header('s1'))
    const seen = new Set<string>()
    for (let t = 0; t < 4; t++) {
      const { revision } = await handle.append(completeTurn(6 * t, t + 1))
      if (revision === null) return expect.fail('a non-empty append returned a null revision')
      expect(seen.has(revision)).toBe(false)
      seen.add(revision)
      const i1 = await m.persistence.inspect('s1')
      const i2 = await m.persistence.inspect('s1')
      expect(i1.revision).toBe(revision)
      expect(i2.revision).toBe(revision)
      expect((await m.persistence.list()).items[0]?.revision).toBe(revision)
    }
    await handle.close()
  })
}
