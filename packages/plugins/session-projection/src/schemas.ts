/**
 * The state schemas of the built-in units (03 §1.4 "Reading": a checkpoint row is usable only if `stateSchema`
 * accepts it). Each accepts exactly the states its fold produces — every key present, no other key, `null` only
 * where the state holds it — because a row that merely looks close (a missing `turnAt`, a `{}` title) would be folded
 * on and give wrong values forever. Schemastery cannot tell a missing key from `null`, so these are written as plain
 * Standard Schema v1 validators.
 */
import type { StandardSchemaLike } from './types.ts'

/** The first problem of a value (`undefined` when it is acceptable), named by its path from the state root. */
type Check = (value: unknown, path: string) => string | undefined

const isPlain = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const natural: Check = (value, path) =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : `${path} must be a non-negative safe integer`

const text: Check = (value, path) => (typeof value === 'string' ? undefined : `${path} must be a string`)

const oneOf = (...allowed: readonly string[]): Check => (value, path) =>
  allowed.includes(value as string) ? undefined : `${path} must be one of ${allowed.map(a => JSON.stringify(a)).join(', ')}`

const nullable = (check: Check): Check => (value, path) => (value === null ? undefined : check(value, path))

/** An object with exactly the keys of `fields`, each passing its check. */
function exact(fields: Readonly<Record<string, Check>>): Check {
  const keys = Object.keys(fields)
  return (value, path) => {
    if (!isPlain(value)) return `${path} must be an object`
    for (const key of keys) {
      if (!Object.hasOwn(value, key)) return `${path}.${key} is required`
      const problem = fields[key]!(value[key], `${path}.${key}`)
      if (problem !== undefined) return problem
    }
    for (const key of Object.keys(value)) if (!Object.hasOwn(fields, key)) return `${path}.${key} is not allowed`
    return undefined
  }
}

/** An object whose every own value passes `check`. */
const dict = (check: Check): Check => (value, path) => {
  if (!isPlain(value)) return `${path} must be an object`
  for (const [key, item] of Object.entries(value)) {
    const problem = check(item, `${path}.${key}`)
    if (problem !== undefined) return problem
  }
  return undefined
}

const list = (check: Check): Check => (value, path) => {
  if (!Array.isArray(value)) return `${path} must be an array`
  for (let i = 0; i < value.length; i++) {
    const problem = check(value[i], `${path}[${i}]`)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** A synchronous Standard Schema v1 that accepts a value (unchanged) iff `check` finds no problem. */
function schema(check: Check): StandardSchemaLike {
  const validate = (value: unknown): unknown => {
    const problem = check(value, '$')
    return problem === undefined ? { value } : { issues: [{ message: problem }] }
  }
  return Object.freeze({ '~standard': Object.freeze({ version: 1, vendor: 'logbook', validate }) })
}

const TOTALS = [
  'turns', 'steps', 'toolCalls', 'toolErrors', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'reasoningTokens',
  'compactions', 'turnMs', 'modelMs', 'toolMs',
] as const

/** The schema of a stored `stats` state: the twelve totals, the open turn/step start times, the open call times. */
export const StatsStateSchema: StandardSchemaLike = schema(exact({
  totals: exact(Object.fromEntries(TOTALS.map(key => [key, natural]))),
  turnAt: nullable(natural),
  stepAt: nullable(natural),
  callsAt: dict(natural),
}))

/** The schema of a stored `todos` state: `{ todos: null }` or the last written list. */
export const TodosStateSchema: StandardSchemaLike = schema(exact({
  todos: nullable(list(exact({ content: text, status: oneOf('pending', 'in_progress', 'completed') }))),
}))

/** The schema of a stored `title` state: the explicit title and the first-prompt fallback, each a string or null. */
export const TitleStateSchema: StandardSchemaLike = schema(exact({
  explicit: nullable(text),
  fallback: nullable(text),
}))
