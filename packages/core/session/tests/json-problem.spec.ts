import { describe, expect, it } from 'vitest'
import { isJsonValue, jsonValueProblem } from '../src/index.ts'

class Point { x = 1 }

describe('jsonValueProblem (01 §3.2)', () => {
  it('S-143 names the path and what is there for each value isJsonValue rejects, and nothing for lossless JSON', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = { back: cycle }
    const symbolKey = { [Symbol('k')]: 1 }
    const hidden = Object.defineProperty({}, 'h', { value: 1, enumerable: false })
    const deep: unknown[] = []
    let cursor = deep
    for (let i = 0; i < 1000; i++) cursor.push(cursor = [])
    const cases: [unknown, string, string][] = [
      [{ a: undefined }, '.a', 'undefined'],
      [{ list: [1, NaN] }, '.list[1]', 'NaN'],
      [{ n: -0 }, '.n', '-0'],
      [[Infinity], '[0]', 'Infinity'],
      [{ big: 1n }, '.big', 'a BigInt'],
      [{ f: () => 1 }, '.f', 'a function'],
      [{ s: Symbol('x') }, '.s', 'a symbol'],
      [{ m: new Map() }, '.m', 'a Map'],
      [{ when: new Date(0) }, '.when', 'a Date'],
      [{ p: new Point() }, '.p', 'a Point'],
      [{ toJSON: () => 'x' }, '.toJSON', 'a function'],
      [{ sparse: [1, , 2] }, '.sparse', 'a sparse array, an array with extra keys or an Array subclass'],
      [symbolKey, '', 'an object with symbol or non-enumerable keys'],
      [hidden, '', 'an object with symbol or non-enumerable keys'],
      [cycle, '.self.back', 'a cycle'],
      [deep, '[0]'.repeat(1000), 'a container nested deeper than 1000 levels'],
    ]
    for (const [value, path, found] of cases) {
      expect(isJsonValue(value)).toBe(false)
      expect(jsonValueProblem(value)).toEqual({ path, found })
    }
    const shared = { x: [1, 'a', null, true] }
    for (const ok of [null, 'a', 0, { a: shared, b: shared }, [[[]]], Object.create(null) as object]) {
      expect(isJsonValue(ok)).toBe(true)
      expect(jsonValueProblem(ok)).toBeUndefined()
    }
  })
})
