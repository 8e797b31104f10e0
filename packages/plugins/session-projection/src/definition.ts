/**
 * Unit definitions (03 §1.1): validation at registration and the guarded calls every fold goes through, so the
 * live drive, cold snapshots and `foldProjection` apply the same rules (thenables fail, new states are frozen).
 */
import { isThenable, printValue, type SessionEvent } from '@logbook/session'
import { invalidDefinition } from './errors.ts'
import { freezeState } from './freeze.ts'
import type { StandardSchemaLike } from './types.ts'

const KEY = /^[A-Za-z][A-Za-z0-9._/-]{0,63}$/

/** A validated definition: its fields captured once, so later changes to the caller's object have no effect. */
export interface Unit {
  readonly key: string
  readonly stateVersion: number
  readonly schema: StandardSchemaLike
  /** Has a `view`: appears in snapshots and change notices. */
  readonly viewable: boolean
  /** The caller's object, the receiver of every call. */
  readonly source: object
  readonly init: (this: unknown) => unknown
  readonly apply: (this: unknown, state: unknown, event: SessionEvent) => unknown
  readonly view: ((this: unknown, state: unknown) => unknown) | undefined
  /** The definition's `eventTypes`, copied; undefined when it folds every event. */
  readonly types: ReadonlySet<string> | undefined
}

function isStandardSchema(value: unknown): value is StandardSchemaLike {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  const props = (value as { '~standard'?: unknown })['~standard']
  if (typeof props !== 'object' || props === null) return false
  const { version, validate } = props as { version?: unknown; validate?: unknown }
  return version === 1 && typeof validate === 'function'
}

/**
 * Check a definition and capture its fields (03 §1.1).
 * @throws ProjectionError `INVALID_DEFINITION` naming the first bad field: key, version, function or schema.
 */
export function toUnit(def: unknown): Unit {
  if (typeof def !== 'object' || def === null) throw invalidDefinition(undefined, 'the definition must be an object')
  const { key, stateVersion, stateSchema, init, apply, view, eventTypes } = def as Record<string, unknown>
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw invalidDefinition(key, 'key must match ^[A-Za-z][A-Za-z0-9._/-]{0,63}$')
  }
  if (typeof stateVersion !== 'number' || !Number.isSafeInteger(stateVersion) || stateVersion < 0) {
    throw invalidDefinition(key, `stateVersion must be a non-negative safe integer, got ${describeVersion(stateVersion)}`)
  }
  if (!isStandardSchema(stateSchema)) throw invalidDefinition(key, 'stateSchema must be a Standard Schema v1')
  if (typeof init !== 'function') throw invalidDefinition(key, 'init must be a function')
  if (typeof apply !== 'function') throw invalidDefinition(key, 'apply must be a function')
  if (view !== undefined && typeof view !== 'function') throw invalidDefinition(key, 'view must be a function when present')
  return Object.freeze({
    key, stateVersion, schema: stateSchema, viewable: view !== undefined, source: def,
    init: init as Unit['init'], apply: apply as Unit['apply'], view: view as Unit['view'], types: typesOf(key, eventTypes),
  })
}

/** `eventTypes` as a set (a copy), or undefined when absent. @throws `INVALID_DEFINITION` for anything else. */
function typesOf(key: string, eventTypes: unknown): ReadonlySet<string> | undefined {
  if (eventTypes === undefined) return undefined
  if (!Array.isArray(eventTypes) || !eventTypes.every(type => typeof type === 'string' && type !== '')) {
    throw invalidDefinition(key, 'eventTypes must be an array of event type names when present')
  }
  return new Set(eventTypes as string[])
}

function describeVersion(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : printValue(value)
}

/** Refuse a thenable result; its eventual rejection is swallowed, since the unit already failed for returning it. */
function settled(unit: Unit, value: unknown): unknown {
  if (!isThenable(value)) return value
  Promise.resolve(value).then(undefined, () => {})
  throw new Error(`unit ${unit.key} returned a Promise`)
}

/** `init()`, deep-frozen. @throws whatever `init` throws; Error "unit <key> returned a Promise". */
export function initState(unit: Unit): unknown {
  return freezeState(settled(unit, unit.init.call(unit.source)))
}

/**
 * `apply(state, event)`: the same reference back means no work (03 §1.3 rule 5), anything else is frozen. A unit
 * that names its event types keeps `state` for any other type without being called.
 * @throws whatever `apply` throws; Error "unit <key> returned a Promise".
 */
export function applyEvent(unit: Unit, state: unknown, event: SessionEvent): unknown {
  if (unit.types !== undefined && !unit.types.has(event.type)) return state
  const next = unit.apply.call(unit.source, state, event)
  // The common case first: a stored state is never a thenable (it would have failed when it was produced).
  if (Object.is(next, state)) return state
  return freezeState(settled(unit, next))
}

/** `view(state)` of a viewable unit. @throws whatever `view` throws; Error "unit <key> returned a Promise". */
export function viewOf(unit: Unit, state: unknown): unknown {
  return settled(unit, unit.view!.call(unit.source, state))
}

/** True iff the unit's schema accepts `state` synchronously (a throwing or asynchronous schema accepts nothing). */
export function schemaAccepts(unit: Unit, state: unknown): boolean {
  let result: unknown
  try {
    result = unit.schema['~standard'].validate(state)
  } catch {
    return false // a schema that throws is treated as a rejection: the row is rebuilt from the log instead
  }
  if (isThenable(result)) {
    Promise.resolve(result).then(undefined, () => {})
    return false
  }
  if (typeof result !== 'object' || result === null) return false
  const issues = (result as { issues?: unknown }).issues
  return issues === undefined || issues === null
}
