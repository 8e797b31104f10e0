/**
 * Where a value fails lossless JSON (01 §3.2), for messages that must name the offending path. It applies the same
 * rules as the lossless walk of `json.ts` (its scalar and shape tests), but only on the error path: callers run it
 * after a cheap `isJsonValue` said no, or on small configuration values.
 */

import { BY_INDEX, isLosslessScalar, MAX_JSON_LEVEL, shapeOf } from './json.ts'

/** The first place a value is not lossless JSON: its path (`.key` and `[i]`, `''` for the value itself) and what is there. */
export interface JsonValueProblem {
  readonly path: string
  /** What was found, as a noun phrase: `undefined`, `NaN`, `-0`, `a BigInt`, `a Map`, `a cycle`, … */
  readonly found: string
}

function scalarFound(v: unknown): string {
  switch (typeof v) {
    case 'number':
      return Object.is(v, -0) ? '-0' : String(v)
    case 'bigint':
      return 'a BigInt'
    case 'undefined':
      return 'undefined'
    default:
      return `a ${typeof v}`
  }
}

function containerFound(v: object): string {
  if (Array.isArray(v)) return 'a sparse array, an array with extra keys or an Array subclass'
  const proto: unknown = Object.getPrototypeOf(v)
  const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name
  if (proto === Object.prototype || proto === null) return 'an object with symbol or non-enumerable keys'
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an object that is not plain'
}

const step = (path: string, key: string, byIndex: boolean): string => (byIndex ? `${path}[${key}]` : `${path}.${key}`)

/**
 * The first place in depth-first `JSON.stringify` order where `value` (at `level`, 1 for a value of its own) is not
 * lossless JSON, or `undefined` when it is. Each property is read once.
 */
export function jsonValueProblem(value: unknown, level = 1): JsonValueProblem | undefined {
  const ancestors: object[] = []
  const visit = (v: unknown, path: string, at: number): JsonValueProblem | undefined => {
    if (typeof v !== 'object' || v === null) return isLosslessScalar(v) ? undefined : { path, found: scalarFound(v) }
    if (ancestors.includes(v)) return { path, found: 'a cycle' }
    if (at > MAX_JSON_LEVEL) return { path, found: `a container nested deeper than ${MAX_JSON_LEVEL} levels` }
    const keys = shapeOf(v)
    if (keys === undefined) return { path, found: containerFound(v) }
    ancestors.push(v)
    const byIndex = keys === BY_INDEX
    const n = byIndex ? (v as unknown[]).length : keys.length
    for (let i = 0; i < n; i++) {
      const key = byIndex ? String(i) : keys[i] as string
      const problem = visit((v as Record<string, unknown>)[key], step(path, key, byIndex), at + 1)
      if (problem !== undefined) return problem
    }
    ancestors.pop()
    return undefined
  }
  return visit(value, '', level)
}
