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

/** True for null, booleans, strings and finite numbers other than `-0`. Containers are handled by the walk. */
function isLosslessScalar(v: unknown): boolean {
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

const FAIL: unique symbol = Symbol('not lossless JSON')
/** Marks an admitted array in `shapeOf` (arrays iterate by index, not by keys). */
const BY_INDEX: string[] = []

/** The keys of an admissible object, BY_INDEX for an admissible array, or undefined for anything else. */
function shapeOf(v: object): string[] | undefined {
  const p: object | null = getProto(v)
  if (isArray(v)) {
    if (p !== ArrayProto && (p === null || !isForeignArrayProto(p))) return undefined
    return ownSymbols(v).length === 0 ? BY_INDEX : undefined
  }
  if (p !== ObjectProto && p !== null && !isForeignObjectProto(p)) return undefined
  const keys = objectKeys(v)
  return ownNames(v).length === keys.length && ownSymbols(v).length === 0 ? keys : undefined
}

/**
 * The one lossless-JSON walk, depth first in JSON.stringify order. With `copy` it builds plain copies, freezing each
 * (with `doFreeze`) as soon as its slots are filled; otherwise it only validates. Returns the copy or `value`, or FAIL.
 */
function walk(value: unknown, level: number, copy: boolean, doFreeze: boolean): unknown {
  if (typeof value !== 'object' || value === null) return isLosslessScalar(value) ? value : FAIL
  if (level > MAX_JSON_LEVEL) return FAIL
  const rootKeys = shapeOf(value)
  if (rootKeys === undefined) return FAIL
  const rootLen = rootKeys === BY_INDEX ? (value as unknown[]).length : rootKeys.length
  if (rootKeys === BY_INDEX && ownNames(value).length !== rootLen + 1) return FAIL
  const root: object | null = copy ? (rootKeys === BY_INDEX ? [] : {}) : null
  // Frames: the source container (also the cycle path), its copy, its keys, its length and the next slot.
  const srcs: object[] = [value]
  const dsts: (object | null)[] = [root]
  const keyLists: string[][] = [rootKeys]
  const lens: number[] = [rootLen]
  const idx: number[] = [0]
  let sp = 1
  outer: while (sp > 0) {
    const top = sp - 1
    const src = srcs[top] as Record<string, unknown> & unknown[]
    const dst = dsts[top] as (Record<string, unknown> & unknown[]) | null
    const keys = keyLists[top] as string[]
    const byIndex = keys === BY_INDEX
    const len = lens[top] as number
    let i = idx[top] as number
    while (i < len) {
      const key = byIndex ? i : (keys[i] as string)
      const v: unknown = src[key as never]
      i++
      if (typeof v !== 'object' || v === null) {
        if (!isLosslessScalar(v)) return FAIL
        if (dst !== null) store(dst, byIndex, key, v)
        continue
      }
      if (level + sp > MAX_JSON_LEVEL) return FAIL
      for (let j = 0; j < sp; j++) if (srcs[j] === v) return FAIL
      const childKeys = shapeOf(v)
      if (childKeys === undefined) return FAIL
      let childLen: number
      if (childKeys === BY_INDEX) {
        childLen = (v as unknown[]).length
        if (ownNames(v).length !== childLen + 1) return FAIL
      } else {
        childLen = childKeys.length
      }
      idx[top] = i
      let child: object | null = null
      if (dst !== null) {
        child = childKeys === BY_INDEX ? [] : {}
        store(dst, byIndex, key, child)
      }
      srcs[sp] = v
      dsts[sp] = child
      keyLists[sp] = childKeys
      lens[sp] = childLen
      idx[sp] = 0
      sp++
      continue outer
    }
    if (doFreeze && dst !== null) freeze(dst)
    sp = top
  }
  return copy ? root : value
}

function store(dst: Record<string, unknown> & unknown[], byIndex: boolean, key: string | number, v: unknown): void {
  if (byIndex) dst.push(v)
  else if (key === '__proto__') Object.defineProperty(dst, key, { value: v, enumerable: true, writable: true, configurable: true })
  else dst[key as string] = v
}

/** True iff `value` is lossless JSON (01 §3.2), validated in place without copying; a throwing getter propagates. */
export function isJsonValue(value: unknown): boolean {
  return walk(value, 1, false, false) !== FAIL
}

/** @internal `isJsonValue` for a value found at `level` (an event is level 1, its `data` level 2). */
export function isJsonValueAt(value: unknown, level: number): boolean {
  return walk(value, level, false, false) !== FAIL
}

/**
 * A detached plain copy of `value` (plain prototypes, shared references copied apart), or `undefined` when it is not
 * lossless JSON (01 §3.2); validation and copy are one walk. The copy is not frozen.
 */
export function snapshotJsonValue<T>(value: T): T | undefined {
  const out = walk(value, 1, true, false)
  return out === FAIL ? undefined : (out as T)
}

/**
 * @internal Validate, copy and deep-freeze `value` (found at `level`) in one walk: `{ value: copy }`, or `undefined`
 * when it is not lossless JSON. Strings are shared; scalars are returned as is.
 */
export function snapshotFrozen(value: unknown, level: number): { value: unknown } | undefined {
  const out = walk(value, level, true, true)
  return out === FAIL ? undefined : { value: out }
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

function parsedWalk(value: unknown, level: number, doFreeze: boolean): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'number' || isLosslessScalar(value)
  if (level > MAX_JSON_LEVEL) return false
  const stack: object[] = [value]
  const levels: number[] = [level]
  while (stack.length > 0) {
    const c = stack.pop() as Record<string, unknown>
    const childLevel = (levels.pop() as number) + 1
    if (doFreeze) freeze(c)
    if (isArray(c)) {
      for (let i = 0; i < c.length; i++) {
        const v: unknown = c[i]
        if (typeof v === 'number') {
          if (!isLosslessScalar(v)) return false
        } else if (typeof v === 'object' && v !== null) {
          if (childLevel > MAX_JSON_LEVEL) return false
          stack.push(v)
          levels.push(childLevel)
        }
      }
    } else {
      for (const k in c) {
        const v = c[k]
        if (typeof v === 'number') {
          if (!isLosslessScalar(v)) return false
        } else if (typeof v === 'object' && v !== null) {
          if (childLevel > MAX_JSON_LEVEL) return false
          stack.push(v)
          levels.push(childLevel)
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
