import { describe, expect, it } from 'vitest'
import { Session } from '../src/index.ts'
import { appendAs, sid, spyArrayCopies } from './harness.ts'

function withEvents(count: number): Session {
  const s = Session.create(sid('s'))
  for (let i = 0; i < count; i++) appendAs(s, 'plugin/x', { i })
  return s
}

describe('the events view', () => {
  it('S-046 the view keeps its identity until an append, and an older view keeps its length', () => {
    const s = withEvents(2)
    const view = s.events
    expect(s.events).toBe(view)
    s.deriveMessages()
    void s.surface
    expect(s.events).toBe(view)
    appendAs(s, 'plugin/x', {})
    const next = s.events
    expect(next).not.toBe(view)
    expect([view.length, next.length]).toEqual([2, 3])
    expect(view[2]).toBeUndefined()
    expect(2 in view).toBe(false)
    expect([...view]).toEqual([next[0], next[1]])
    expect(Object.keys(view)).toEqual(['0', '1'])
  })

  it('S-047 the view is an array that refuses every write and supports every read', () => {
    const s = withEvents(3)
    const view = s.events
    expect(Array.isArray(view)).toBe(true)
    const writes: (() => unknown)[] = [
      () => (view as unknown[]).push(1),
      () => { (view as unknown[])[0] = 1 },
      () => { (view as unknown[])[3] = 1 },
      () => { (view as unknown[]).length = 0 },
      () => Object.defineProperty(view, 'x', { value: 1 }),
      () => delete (view as unknown[])[0],
      () => (view as unknown[]).sort(),
      () => Object.freeze(view),
    ]
    for (const write of writes) expect(write).toThrow(TypeError)
    expect(view.length).toBe(3)
    expect(view.slice(1).map(e => e.seq)).toEqual([1, 2])
    expect(view.map(e => e.seq)).toEqual([0, 1, 2])
    expect(view.findLast(e => e.seq < 2)?.seq).toBe(1)
    expect([...view]).toHaveLength(3)
    expect(view.at(-1)).toBe(view[2])
    expect(JSON.parse(JSON.stringify(view))).toEqual([...view])
    expect(Object.getPrototypeOf(view)).toBe(Array.prototype)
    expect(structuredClone([...view])).toEqual([...view])
  })

  it('S-048 reading the view after each of 100,000 appends never copies the log', () => {
    const LONG = 1000
    const isLong = (value: unknown): boolean => {
      try {
        return typeof value === 'object' && value !== null && (value as { length?: unknown }).length as number >= LONG
      } catch {
        return false
      }
    }
    const spy = spyArrayCopies(isLong, 'receiver')
    const counts = spy.counts
    try {
      const s = Session.create(sid('big'))
      let last: unknown
      for (let i = 0; i < 100_000; i++) {
        appendAs(s, 'plugin/x', {})
        const events = s.events
        if (events.length !== i + 1) throw new Error(`length ${events.length} after ${i + 1} appends`)
        last = events[events.length - 1]
      }
      expect(last).toBe(s.events.at(-1))
      expect(counts).toEqual({ slice: 0, concat: 0, iterator: 0, from: 0 })
      // The spies do see a copy when one is made.
      void [...s.events]
      s.events.slice()
      expect(counts.iterator).toBe(1)
      expect(counts.slice).toBe(1)
    } finally {
      spy.restore()
    }
  })

  it('S-144 slice on the view returns what Array.prototype.slice would, copied from the log, bounded by the view', () => {
    const s = withEvents(6)
    const view = s.events
    appendAs(s, 'plugin/x', {})
    const all = [...view]
    const args: [unknown?, unknown?][] = [
      [], [2], [2, 4], [-2], [-10, 3], [4, 2], [0, 100], [100], [1.7, 3.2], [Number.NaN, -1], ['1', '3'], [undefined, 2],
    ]
    for (const [start, end] of args) {
      const expected = Array.prototype.slice.call(all, start as number, end as number)
      const actual = (view.slice as (a?: unknown, b?: unknown) => unknown[])(start, end)
      expect(actual).toEqual(expected)
      expect(actual.every((event, i) => event === expected[i])).toBe(true)
      expect(Array.isArray(actual) && !Object.isFrozen(actual)).toBe(true)
    }
    expect(view.slice()).toHaveLength(6) // the older view keeps its length
    // One copy of the backing log (7 events), not a read through the 6-event view's traps.
    const spy = spyArrayCopies(value => Array.isArray(value) && (value as unknown[]).length === 7, 'receiver')
    try {
      view.slice(1, 3)
      expect(spy.counts.slice).toBe(1)
    } finally {
      spy.restore()
    }
    const copy = view.slice()
    copy.push(view[0]!)
    expect(view).toHaveLength(6)
  })
})
