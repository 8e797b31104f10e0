import vm from 'node:vm'
import { describe, expect, it } from 'vitest'
import {
  checkParsedNumbers, deepFreeze, freezeParsed, isJsonValue, isJsonValueAt, MAX_JSON_LEVEL, NOT_JSON, snapshotFrozen,
  snapshotJsonValue,
} from '../src/json.ts'

/** Arrays nested `n` deep: `[[...[]...]]`. */
function nested(n: number): unknown {
  let v: unknown[] = []
  for (let i = 1; i < n; i++) v = [v]
  return v
}

/** Every way the three walks see a value: validate in place, copy, copy + freeze (as event data, level 2). */
function verdicts(value: unknown): boolean[] {
  return [isJsonValue(value), snapshotJsonValue(value) !== undefined, snapshotFrozen(value, 2) !== NOT_JSON]
}

class Point { x = 1 }
class MyArray extends Array<number> {}

describe('lossless JSON (01 §3.2)', () => {
  it('accepts null, booleans, strings, finite numbers and plain containers', () => {
    for (const v of [null, true, false, '', 'x', 0, 1.5, -2, Number.MAX_VALUE, [], {}, [1, 'a', null, { b: [true] }]]) {
      expect(isJsonValue(v)).toBe(true)
      expect(snapshotJsonValue(v)).toEqual(v)
      expect(snapshotFrozen(v, 1)).toEqual(v)
    }
  })

  it('S-002 (unit) rejects a BigInt anywhere', () => {
    expect(isJsonValue(1n)).toBe(false)
    expect(verdicts({ a: 1n })).toEqual([false, false, false])
    expect(snapshotJsonValue({ a: [1n] })).toBeUndefined()
  })

  it('S-003 (unit) rejects each non-JSON value in data', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const withExtra = Object.assign([1, 2], { extra: 1 })
    const nonEnumerable = Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false })
    const cases: [string, unknown][] = [
      ['function', () => 1],
      ['symbol', Symbol('s')],
      ['Map', new Map()],
      ['Set', new Set()],
      ['Date', new Date(0)],
      ['undefined value', undefined],
      ['sparse array', [1, , 2]], // eslint-disable-line no-sparse-arrays
      ['undefined slot', [1, undefined]],
      ['NaN', Number.NaN],
      ['Infinity', Infinity],
      ['-Infinity', -Infinity],
      ['-0', -0],
      ['class instance', new Point()],
      ['Array subclass', MyArray.from([1])],
      ['symbol key', { a: 1, [Symbol('k')]: 2 }],
      ['array symbol key', Object.assign([1], { [Symbol('k')]: 2 })],
      ['non-enumerable key', nonEnumerable],
      ['array with an extra key', withExtra],
      ['array with a non-enumerable extra key', Object.defineProperty([1], 'x', { value: 1, enumerable: false })],
      ['cycle', cyclic],
      ['boxed string', new String('x')],
      ['object with an Array prototype', Object.create(Array.prototype)],
      ['typed array', new Uint8Array(2)],
    ]
    for (const [name, value] of cases) {
      expect([name, ...verdicts({ data: [value] })]).toEqual([name, false, false, false])
      expect([name, isJsonValue(value)]).toEqual([name, false])
    }
  })

  it('rejects a cycle through arrays and a wide self-reference without blowing up', () => {
    const a: unknown[] = []
    a.push({ back: a })
    expect(isJsonValue(a)).toBe(false)
    const wide: Record<string, unknown> = {}
    for (let i = 0; i < 40; i++) wide[`k${i}`] = wide
    expect(isJsonValue(wide)).toBe(false)
    expect(snapshotFrozen(wide, 1)).toBe(NOT_JSON)
  })

  it('S-004 (unit) copies a shared reference twice, each copy frozen', () => {
    const shared = { k: [1] }
    const out = snapshotFrozen({ a: shared, b: shared }, 2) as { a: { k: number[] }; b: { k: number[] } }
    expect(out.a).toEqual(shared)
    expect(out.a).not.toBe(out.b)
    expect(out.a).not.toBe(shared)
    expect(out.a.k).not.toBe(out.b.k)
    for (const part of [out, out.a, out.b, out.a.k, out.b.k]) expect(Object.isFrozen(part)).toBe(true)
  })

  it('S-005 (unit) gives a null-prototype object a plain prototype and accepts another realm', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 })
    const copy = snapshotJsonValue(bare) as object
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(copy).toEqual({ a: 1 })
    const foreign: unknown = vm.runInNewContext('({ a: [1, { b: "x" }], c: null })')
    expect(isJsonValue(foreign)).toBe(true)
    const foreignCopy = snapshotJsonValue(foreign) as { a: unknown[] }
    expect(Object.getPrototypeOf(foreignCopy)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(foreignCopy.a)).toBe(Array.prototype)
    expect(foreignCopy).toEqual({ a: [1, { b: 'x' }], c: null })
    expect(isJsonValue(vm.runInNewContext('[[1], []]'))).toBe(true)
    expect(isJsonValue(vm.runInNewContext('new Map()'))).toBe(false)
    expect(isJsonValue(vm.runInNewContext('class A {}; new A()'))).toBe(false)
  })

  it('S-005 (unit) rejects forged Object and Array constructors', () => {
    const forgedObject = Object.create({ constructor: Object }) as object
    const nullWithCtor = Object.create(Object.assign(Object.create(null) as object, { constructor: Object })) as object
    function Fake(): void {}
    Fake.prototype.constructor = Object
    const fakeInstance = new (Fake as unknown as new () => object)()
    const realmObject = vm.runInNewContext('Object') as ObjectConstructor
    const foreignForged = Object.create({ constructor: realmObject }) as object
    const forgedArrayProto = Object.assign([] as unknown[], { constructor: Array })
    const forgedArray = Object.setPrototypeOf([1], forgedArrayProto) as unknown[]
    const nativeNamedObject = Object.create(Object.create(null, { constructor: { value: Object } })) as object
    for (const v of [forgedObject, nullWithCtor, fakeInstance, foreignForged, forgedArray, nativeNamedObject]) {
      expect(verdicts({ v })).toEqual([false, false, false])
    }
  })

  it('S-006 (unit) reads each getter exactly once and stores what it returned', () => {
    let calls = 0
    const source = { get v(): unknown { calls++; return calls === 1 ? 'a' : 1n } }
    const out = snapshotFrozen(source, 2) as { v: unknown }
    expect(calls).toBe(1)
    expect(out.v).toBe('a')
    expect(Object.getOwnPropertyDescriptor(out, 'v')).toMatchObject({ value: 'a', writable: false })
    let slotReads = 0
    const arr = [0]
    Object.defineProperty(arr, 0, { get: () => { slotReads++; return slotReads } , enumerable: true })
    expect(snapshotJsonValue(arr)).toEqual([1])
    expect(slotReads).toBe(1)
    calls = 0
    expect(isJsonValue(source)).toBe(true)
    expect(calls).toBe(1)
  })

  it('S-006 (unit) propagates a throwing getter', () => {
    const boom = new Error('boom')
    const source = { get v(): unknown { throw boom } }
    expect(() => isJsonValue(source)).toThrow(boom)
    expect(() => snapshotJsonValue({ a: source })).toThrow(boom)
    expect(() => snapshotFrozen([source], 2)).toThrow(boom)
  })

  it('S-007 (unit) allows 999 nested arrays in data (level 2) and rejects 1,000', () => {
    expect(MAX_JSON_LEVEL).toBe(1000)
    const ok = snapshotFrozen(nested(999), 2)
    expect(ok).not.toBe(NOT_JSON)
    expect(() => JSON.stringify(ok)).not.toThrow()
    expect(isJsonValueAt(nested(999), 2)).toBe(true)
    expect(isJsonValueAt(nested(1000), 2)).toBe(false)
    expect(snapshotFrozen(nested(1000), 2)).toBe(NOT_JSON)
    // A value that is not part of an event is level 1: 1,000 containers deep is the limit.
    expect(isJsonValue(nested(1000))).toBe(true)
    expect(snapshotJsonValue(nested(1001))).toBeUndefined()
    // A scalar in the deepest allowed container is fine: depth counts containers.
    let withLeaf: unknown = [1]
    for (let i = 1; i < 999; i++) withLeaf = [withLeaf]
    expect(isJsonValueAt(withLeaf, 2)).toBe(true)
  })

  it('S-007 (unit) keeps an own __proto__ key from JSON.parse as an own data property', () => {
    const parsed: unknown = JSON.parse('{"__proto__": {"x": 1}, "y": 2}')
    for (const copy of [snapshotJsonValue(parsed), snapshotFrozen(parsed, 2)] as Record<string, unknown>[]) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
      expect(Object.keys(copy)).toEqual(['__proto__', 'y'])
      expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ x: 1 })
      expect(JSON.stringify(copy)).toBe('{"__proto__":{"x":1},"y":2}')
    }
  })

  it('ignores toJSON and keeps key order', () => {
    expect(isJsonValue({ toJSON: () => 1 })).toBe(false)
    expect(snapshotJsonValue({ toJSON: 'kept', b: 1, a: 2, 1: 3 })).toEqual({ 1: 3, toJSON: 'kept', b: 1, a: 2 })
    expect(Object.keys(snapshotJsonValue({ b: 1, a: 2 }) as object)).toEqual(['b', 'a'])
  })

  it('snapshotJsonValue detaches an unfrozen copy; snapshotFrozen freezes it; frozen inputs are fine', () => {
    const source = { a: [{ b: 1 }] }
    const copy = snapshotJsonValue(source) as typeof source
    expect(Object.isFrozen(copy)).toBe(false)
    copy.a[0]!.b = 2
    expect(source.a[0]!.b).toBe(1)
    const frozen = deepFreeze({ a: [{ b: 1 }] })
    expect(snapshotFrozen(frozen, 1)).toEqual(frozen)
    expect(snapshotFrozen(frozen, 1)).not.toBe(frozen)
    expect(snapshotFrozen('s', 2)).toBe('s')
    expect(snapshotFrozen(-0, 2)).toBe(NOT_JSON)
  })

  it('a getter that starts another walk mid-walk leaves both results intact (no shared state leaks)', () => {
    const inner = { deep: [1, { x: 'y' }] }
    let nested: unknown
    const source = {
      a: [1, 2],
      get b(): unknown {
        nested = snapshotFrozen({ other: [inner, inner] }, 2)
        expect(isJsonValue({ bad: 1n })).toBe(false)
        return { c: 3 }
      },
      d: { e: [true, null] },
    }
    expect(snapshotFrozen(source, 2)).toEqual({ a: [1, 2], b: { c: 3 }, d: { e: [true, null] } })
    expect(nested).toEqual({ other: [inner, inner] })
    expect(snapshotFrozen({ after: [1] }, 2)).toEqual({ after: [1] })
  })

  it('checks long arrays whole: density, extra keys and symbol keys at any length', () => {
    const long = Array.from({ length: 5000 }, (_, i) => i)
    expect(verdicts(long)).toEqual([true, true, true])
    const copy = snapshotFrozen(long, 2) as number[]
    expect([copy.length, copy[4999], Object.isFrozen(copy)]).toEqual([5000, 4999, true])
    const holey = [...long]
    delete holey[2500]
    expect(verdicts(holey)).toEqual([false, false, false])
    expect(verdicts(Object.defineProperty([...long], 'x', { value: 1 }))).toEqual([false, false, false])
    expect(verdicts(Object.assign([...long], { [Symbol('k')]: 1 }))).toEqual([false, false, false])
  })

})

describe('restore number check (01 §5.1)', () => {
  it('rejects only -0, ±Infinity, NaN and depth in parsed values', () => {
    expect(checkParsedNumbers(JSON.parse('{"a":[1,{"b":-0}]}'), 1)).toBe(false)
    expect(checkParsedNumbers(JSON.parse('{"a":1e999}'), 1)).toBe(false)
    expect(checkParsedNumbers(JSON.parse('[-1e999]'), 1)).toBe(false)
    expect(checkParsedNumbers(Number.NaN, 1)).toBe(false)
    expect(checkParsedNumbers(-0, 2)).toBe(false)
    expect(checkParsedNumbers(JSON.parse('{"a":[1,{"b":0,"c":"x"}],"d":null}'), 1)).toBe(true)
    expect(checkParsedNumbers(nested(999), 2)).toBe(true)
    expect(checkParsedNumbers(nested(1000), 2)).toBe(false)
  })

  it('freezeParsed checks and freezes every container in one walk', () => {
    const v = JSON.parse('{"a":[1,{"b":[2]}],"c":{"d":"x"}}') as { a: [number, { b: number[] }]; c: object }
    expect(freezeParsed(v, 1)).toBe(true)
    for (const part of [v, v.a, v.a[1], v.a[1].b, v.c]) expect(Object.isFrozen(part)).toBe(true)
    expect(freezeParsed(JSON.parse('{"a":[-0]}'), 1)).toBe(false)
    expect(freezeParsed(nested(1000), 2)).toBe(false)
  })
})

describe('deepFreeze (01 §1.1)', () => {
  it('freezes everything reachable through own properties and returns its argument', () => {
    const sym = Symbol('s')
    const v = { a: [{ b: 1 }], [sym]: { c: 2 } } as Record<PropertyKey, unknown>
    Object.defineProperty(v, 'hidden', { value: { d: 3 }, enumerable: false })
    expect(deepFreeze(v)).toBe(v)
    expect(Object.isFrozen(v)).toBe(true)
    expect(Object.isFrozen((v.a as object[])[0])).toBe(true)
    expect(Object.isFrozen(v[sym])).toBe(true)
    expect(Object.isFrozen(v.hidden)).toBe(true)
    expect(deepFreeze(5)).toBe(5)
    expect(deepFreeze(null)).toBe(null)
  })

  it('reaches array keys beyond the slots: extra named keys and symbol keys', () => {
    const sym = Symbol('s')
    const list = Object.assign([{ slot: 1 }], { extra: { named: 1 }, [sym]: { symbolic: 1 } })
    const sparse = Object.assign([] as object[], { 5: { late: 1 }, tag: { t: 1 } })
    deepFreeze({ list, sparse })
    for (const part of [list, list[0], list.extra, list[sym], sparse, sparse[5], sparse.tag]) expect(Object.isFrozen(part)).toBe(true)
  })

  it('descends into containers that were already frozen', () => {
    const inner = { x: 1 }
    const outer = Object.freeze({ inner: Object.freeze([inner]) })
    deepFreeze(outer)
    expect(Object.isFrozen(inner)).toBe(true)
  })

  it('is iterative and cycle-safe', () => {
    let list: Record<string, unknown> = { end: true }
    const tail = list
    for (let i = 0; i < 100_000; i++) list = { next: list }
    deepFreeze(list)
    expect(Object.isFrozen(tail)).toBe(true)
    const a: Record<string, unknown> = {}
    const b: Record<string, unknown> = { a }
    a.b = b
    a.self = a
    expect(deepFreeze(a)).toBe(a)
    expect(Object.isFrozen(b)).toBe(true)
    const preFrozenCycle: Record<string, unknown> = {}
    preFrozenCycle.me = preFrozenCycle
    Object.freeze(preFrozenCycle)
    expect(deepFreeze(preFrozenCycle)).toBe(preFrozenCycle)
  })

  it('writes into a frozen copy throw in strict mode', () => {
    const out = snapshotFrozen({ a: [1] }, 2) as { a: number[] }
    expect(() => { out.a.push(2) }).toThrow(TypeError)
    expect(() => { (out as Record<string, unknown>).b = 1 }).toThrow(TypeError)
  })
})
