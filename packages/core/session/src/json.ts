/**
 * Lossless JSON (01 §3.2) and freezing (01 §3.3). Every walk here is iterative. The snapshot walk validates, copies
 * and freezes in one pass (the append hot path); each own property and array slot is read exactly once, so a getter
 * cannot feed validation and storage different values, and a throwing getter propagates.
 */

/** The deepest container level a lossless JSON value may reach; an event is level 1, its `data` level 2. */
export const MAX_JSON_LEVEL = 1000

const ObjectProto = Object.prototype
const ArrayProto = Array.prototype
const getProto = Object.getPrototypeOf
const ownNames = Object.getOwnPropertyNames
const ownSymbols = Object.getOwnPropertySymbols
const ownDescriptor = Object.getOwnPropertyDescriptor
const objectKeys = Object.keys
const ownKeys = Reflect.ownKeys
const isArray = Array.isArray
const freeze = Object.freeze
const isFrozen = Object.isFrozen
const fnToString = Function.prototype.toString

/** Prototypes of other realms already proven to be intrinsics (checked once; an intrinsic stays one). */
const genuineForeign = new WeakSet<object>()

function isNativeCtorOf(proto: object, source: string): boolean {
  const d = ownDescriptor(proto, 'constructor')
  if (d === undefined || !('value' in d)) return false
  const ctor: unknown = d.value
  if (typeof ctor !== 'function' || fnToString.call(ctor) !== source) return false
  const p = ownDescriptor(ctor, 'prototype')
  return p !== undefined && p.value === proto
}

/** True iff `p` is some realm's intrinsic `Object.prototype` (its constructor is that realm's native `Object`). */
function isForeignObjectProto(p: object): boolean {
  if (genuineForeign.has(p)) return true
  if (getProto(p) !== null || !isNativeCtorOf(p, 'function Object() { [native code] }')) return false
  genuineForeign.add(p)
  return true
}

/** True iff `p` is some realm's intrinsic `Array.prototype` (an Array exotic whose constructor is native `Array`). */
function isForeignArrayProto(p: object): boolean {
  if (genuineForeign.has(p)) return true
  if (!isArray(p)) return false
  const up = getProto(p)
  if (up === null || (up !== ObjectProto && !isForeignObjectProto(up))) return false
  if (!isNativeCtorOf(p, 'function Array() { [native code] }')) return false
  genuineForeign.add(p)
  return true
}

/** @internal True for null, booleans, strings and finite numbers other than `-0`. Containers are handled by the walk. */
export function isLosslessScalar(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return v - v === 0 && (v !== 0 || 1 / v > 0)
    case 'object':
      return v === null
    default:
      return false
  }
}

/** @internal What the lossless walks return for a value that is not lossless JSON (never a JSON value itself). */
export const NOT_JSON: unique symbol = Symbol('not lossless JSON')

/** @internal Marks an admitted array in `shapeOf` (arrays iterate by index, not by keys). */
export const BY_INDEX: string[] = []

/**
 * @internal The keys of an admissible object, BY_INDEX for an admissible array, or undefined for anything else. Arrays must
 * be dense with no extra keys: their own keys are exactly the slots plus `length` (one `ownKeys` call, cheaper on a
 * long array than names and symbols apart).
 */
export function shapeOf(v: object): string[] | undefined {
  const p: object | null = getProto(v)
  if (isArray(v)) {
    if (p !== ArrayProto && (p === null || !isForeignArrayProto(p))) return undefined
    return ownKeys(v).length === v.length + 1 ? BY_INDEX : undefined
  }
  if (p !== ObjectProto && p !== null && !isForeignObjectProto(p)) return undefined
  const keys = objectKeys(v)
  return ownNames(v).length === keys.length && ownSymbols(v).length === 0 ? keys : undefined
}

/** The walk's frame stacks: the source container (also the cycle path), its copy, its keys, its length, the next slot. */
interface Frames {
  readonly srcs: object[]
  readonly dsts: (object | null)[]
  readonly keyLists: string[][]
  readonly lens: number[]
  readonly idx: number[]
}

const newFrames = (): Frames => ({ srcs: [], dsts: [], keyLists: [], lens: [], idx: [] })
/** Reused by every walk that is not nested in another (a getter may start one): no allocation per call. */
const shared = newFrames()
let sharedBusy = false

/**
 * The one lossless-JSON walk (01 §3.2), depth first in JSON.stringify order: `value` validated and, with `copy`, a
 * plain copy built (arrays exactly sized and filled by index, strings shared), each container frozen as soon as its
 * slots are filled when `doFreeze`. Returns the copy, `value` (validation only) or NOT_JSON.
 */
function walk(value: unknown, level: number, copy: boolean, doFreeze: boolean): unknown {
  if (typeof value !== 'object' || value === null) return isLosslessScalar(value) ? value : NOT_JSON
  if (level > MAX_JSON_LEVEL) return NOT_JSON
  if (sharedBusy) return walkFrames(value, level, copy, doFreeze, newFrames())
  sharedBusy = true
  try {
    return walkFrames(value, level, copy, doFreeze, shared)
  } finally {
    sharedBusy = false
  }
}

function walkFrames(value: object, level: number, copy: boolean, doFreeze: boolean, frames: Frames): unknown {
  const { srcs, dsts, keyLists, lens, idx } = frames
  const rootKeys = shapeOf(value)
  if (rootKeys === undefined) return NOT_JSON
  const rootLen = rootKeys === BY_INDEX ? (value as unknown[]).length : rootKeys.length
  const root: object | null = copy ? (rootKeys === BY_INDEX ? new Array<unknown>(rootLen) : {}) : null
  srcs[0] = value
  dsts[0] = root
  keyLists[0] = rootKeys
  lens[0] = rootLen
  idx[0] = 0
  let sp = 1
  try {
    while (sp > 0) {
      const top = sp - 1
      const src = srcs[top] as Record<string, unknown> & unknown[]
      const dst = dsts[top] as (Record<string, unknown> & unknown[]) | null
      const keys = keyLists[top] as string[]
      const len = lens[top] as number
      let i = idx[top] as number
      let v: unknown
      // Fill scalars in place; stop at the first container, which becomes the next frame.
      if (keys === BY_INDEX) {
        for (; i < len; i++) {
          v = src[i]
          if (typeof v === 'object' && v !== null) break
          if (!isLosslessScalar(v)) return NOT_JSON
          if (dst !== null) dst[i] = v
        }
      } else {
        for (; i < len; i++) {
          const key = keys[i] as string
          v = src[key]
          if (typeof v === 'object' && v !== null) break
          if (!isLosslessScalar(v)) return NOT_JSON
          if (dst !== null) storeKey(dst, key, v)
        }
      }
      if (i === len) {
        if (doFreeze && dst !== null) freeze(dst)
        srcs[top] = BY_INDEX // drop the references: the stacks outlive the walk
        dsts[top] = null
        sp = top
        continue
      }
      const child = v as object
      if (level + sp > MAX_JSON_LEVEL) return NOT_JSON
      for (let j = 0; j < sp; j++) if (srcs[j] === child) return NOT_JSON
      const childKeys = shapeOf(child)
      if (childKeys === undefined) return NOT_JSON
      const childLen = childKeys === BY_INDEX ? (child as unknown[]).length : childKeys.length
      let childCopy: object | null = null
      if (dst !== null) {
        childCopy = childKeys === BY_INDEX ? new Array<unknown>(childLen) : {}
        if (keys === BY_INDEX) dst[i] = childCopy
        else storeKey(dst, keys[i] as string, childCopy)
      }
      idx[top] = i + 1
      srcs[sp] = child
      dsts[sp] = childCopy
      keyLists[sp] = childKeys
      lens[sp] = childLen
      idx[sp] = 0
      sp++
    }
  } finally {
    for (let j = 0; j < sp; j++) {
      srcs[j] = BY_INDEX
      dsts[j] = null
    }
  }
  return copy ? root : value
}

/** Store `v` at `key` of an object copy; an own `__proto__` key stays an own data property. */
function storeKey(dst: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(dst, key, { value: v, enumerable: true, writable: true, configurable: true })
  else dst[key] = v
}

/** True iff `value` is lossless JSON (01 §3.2), validated in place without copying; a throwing getter propagates. */
export function isJsonValue(value: unknown): boolean {
  return walk(value, 1, false, false) !== NOT_JSON
}

/** @internal `isJsonValue` for a value found at `level` (an event is level 1, its `data` level 2). */
export function isJsonValueAt(value: unknown, level: number): boolean {
  return walk(value, level, false, false) !== NOT_JSON
}

/**
 * A detached plain copy of `value` (plain prototypes, shared references copied apart), or `undefined` when it is not
 * lossless JSON (01 §3.2); validation and copy are one walk. The copy is not frozen.
 */
export function snapshotJsonValue<T>(value: T): T | undefined {
  const out = walk(value, 1, true, false)
  return out === NOT_JSON ? undefined : (out as T)
}

/**
 * @internal Validate, copy and deep-freeze `value` (found at `level`) in one walk: the frozen copy, or NOT_JSON when
 * it is not lossless JSON. Strings are shared; scalars are returned as is.
 */
export function snapshotFrozen(value: unknown, level: number): unknown {
  return walk(value, level, true, true)
}

/**
 * @internal The detached-restore check (01 §5.1): true unless a number is `-0`, NaN or ±Infinity, or a container sits
 * deeper than level 1000. Meant for `JSON.parse` output and core-built values; nothing else is checked.
 */
export function checkParsedNumbers(value: unknown, level: number): boolean {
  return parsedWalk(value, level, false)
}

/**
 * @internal `checkParsedNumbers` fused with freezing every container in place, in one walk. On `false` some
 * containers may already be frozen (the detached caller gave up every alias).
 */
export function freezeParsed(value: unknown, level: number): boolean {
  return parsedWalk(value, level, true)
}

/** The stacks `parsedWalk` shares (containers and their levels) when it is not nested in another walk of its own. */
const parsedStack: (object | null)[] = []
const parsedLevels: number[] = []
let parsedBusy = false

function parsedWalk(value: unknown, level: number, doFreeze: boolean): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'number' || isLosslessScalar(value)
  if (level > MAX_JSON_LEVEL) return false
  // A proxy's trap may start another walk: only the outermost one uses the shared stacks.
  if (parsedBusy) return parsedWalkOn(value, level, doFreeze, [], [])
  parsedBusy = true
  try {
    return parsedWalkOn(value, level, doFreeze, parsedStack, parsedLevels)
  } finally {
    parsedBusy = false
  }
}

/** Empties the first `sp` slots of `stack` and returns false (a failing walk's exit). */
function emptied(stack: (object | null)[], sp: number): false {
  while (sp > 0) stack[--sp] = null
  return false
}

/** The walk of `parsedWalk` on the given stacks; every slot it fills is emptied again before it returns. */
function parsedWalkOn(value: object, level: number, doFreeze: boolean, stack: (object | null)[], levels: number[]): boolean {
  let sp = 0
  stack[sp] = value
  levels[sp++] = level
  while (sp > 0) {
    const c = stack[--sp] as Record<string, unknown>
    stack[sp] = null
    const childLevel = (levels[sp] as number) + 1
    if (doFreeze) freeze(c)
    if (isArray(c)) {
      for (let i = 0; i < c.length; i++) {
        const v: unknown = c[i]
        if (typeof v === 'number') {
          if (!isLosslessScalar(v)) return emptied(stack, sp)
        } else if (typeof v === 'object' && v !== null) {
          if (childLevel > MAX_JSON_LEVEL) return emptied(stack, sp)
          stack[sp] = v
          levels[sp++] = childLevel
        }
      }
    } else {
      for (const k in c) {
        const v = c[k]
        if (typeof v === 'number') {
          if (!isLosslessScalar(v)) return emptied(stack, sp)
        } else if (typeof v === 'object' && v !== null) {
          if (childLevel > MAX_JSON_LEVEL) return emptied(stack, sp)
          stack[sp] = v
          levels[sp++] = childLevel
        }
      }
    }
  }
  return true
}

/**
 * Freezes `value` and everything reachable from it through own properties (every own string and symbol key; array
 * slots by index), iteratively and cycle-safely; returns its argument.
 * @throws TypeError from `Object.freeze` for a non-empty typed array, which cannot be frozen.
 */
export function deepFreeze<T>(value: T): T {
  // Each container is frozen when first reached and descended once. A container that was already frozen may still
  // hold unfrozen children, so it is descended too, once, tracked in `seen` (which also ends cycles through it).
  let seen: Set<object> | undefined
  const stack: object[] = []
  const reach = (v: unknown): void => {
    if ((typeof v !== 'object' || v === null) && typeof v !== 'function') return
    if (isFrozen(v)) {
      seen ??= new Set()
      if (seen.has(v)) return
      seen.add(v)
    } else {
      freeze(v)
    }
    stack.push(v)
  }
  reach(value)
  while (stack.length > 0) {
    const o = stack.pop() as Record<PropertyKey, unknown>
    const names = ownNames(o)
    if (isArray(o)) {
      const n = o.length
      for (let i = 0; i < n; i++) reach(o[i])
      // A dense array's own names are its n slots plus `length`; anything beyond that is an extra key.
      if (names.length !== n + 1) for (const name of names) if (name !== 'length' && !isSlot(name, n)) reach(o[name])
    } else {
      for (let i = 0; i < names.length; i++) reach(o[names[i] as string])
    }
    const syms = ownSymbols(o)
    for (let i = 0; i < syms.length; i++) reach(o[syms[i] as symbol])
  }
  return value
}

/** True iff `name` is the canonical name of an array slot below `length`. */
function isSlot(name: string, length: number): boolean {
  const i = Number(name)
  return Number.isInteger(i) && i >= 0 && i < length && String(i) === name
}
