/**
 * The `events` view (spec 01 §3.6): an immutable array view of an append-only log with a fixed length, obtained
 * in O(1). It is a Proxy over the log's slots, so no read ever copies the log; an index read builds a packed chunk
 * member the first time (`EventLog.at`), so a view is indistinguishable from an array of the built events. `slice`
 * reads the range in one loop instead of one trap call per index, for callers that read a long run at once.
 */
import type { EventLog, LogSlot } from './event-log.ts'
import type { SessionEvent } from './types.ts'

/** The canonical array index named by `prop`, or -1. Only digit-led strings can be indexes. */
function indexOf(prop: string | symbol): number {
  if (typeof prop !== 'string') return -1
  const first = prop.charCodeAt(0)
  if (first < 48 || first > 57) return -1
  const index = Number(prop)
  return Number.isSafeInteger(index) && String(index) === prop ? index : -1
}

function refuse(what: string): never {
  throw new TypeError(`session events are read-only: cannot ${what}`)
}

/** `Array.prototype.slice`'s index rule: relative to `length` when negative, clamped to `[0, length]`. */
function clampIndex(value: unknown, length: number, absent: number): number {
  if (value === undefined) return absent
  const n = Math.trunc(Number(value))
  if (Number.isNaN(n)) return 0
  return n < 0 ? Math.max(length + n, 0) : Math.min(n, length)
}

type T = LogSlot

/** The key a view answers with its handler, so a restore can adopt the log behind a view without reading it. */
const VIEW = Symbol('events view')

/** The traps shared by every view; each view's log and length live on its handler. */
class ViewHandler implements ProxyHandler<T[]> {
  private slice: ((start?: number, end?: number) => SessionEvent[]) | undefined = undefined

  constructor(readonly log: EventLog, readonly length: number) {}

  get(target: T[], prop: string | symbol, receiver: unknown): unknown {
    if (prop === 'length') return this.length
    const index = indexOf(prop)
    if (index >= 0) return index < this.length ? this.log.at(index) : undefined
    if (prop === 'slice') return this.slice ??= this.sliceOf()
    if (prop === VIEW) return this
    return Reflect.get(target, prop, receiver)
  }

  /** The view's `slice`: the same plain array `Array.prototype.slice` returns, read from the log. */
  private sliceOf(): (start?: number, end?: number) => SessionEvent[] {
    const { length, log } = this
    return (start?: number, end?: number): SessionEvent[] => {
      const from = clampIndex(start, length, 0)
      return log.slice(from, Math.max(from, clampIndex(end, length, length)))
    }
  }

  has(target: T[], prop: string | symbol): boolean {
    const index = indexOf(prop)
    if (index >= 0) return index < this.length
    return Reflect.has(target, prop)
  }

  getOwnPropertyDescriptor(target: T[], prop: string | symbol): PropertyDescriptor | undefined {
    // `length` is non-configurable on the target, so it must be reported as such (and writable, like the target's).
    if (prop === 'length') return { value: this.length, writable: true, enumerable: false, configurable: false }
    const index = indexOf(prop)
    if (index >= 0) {
      return index < this.length ? { value: this.log.at(index), writable: false, enumerable: true, configurable: true } : undefined
    }
    return Reflect.getOwnPropertyDescriptor(target, prop)
  }

  ownKeys(): (string | symbol)[] {
    const keys: string[] = []
    for (let i = 0; i < this.length; i++) keys.push(String(i))
    keys.push('length')
    return keys
  }

  set(_target: T[], prop: string | symbol): boolean {
    return refuse(`set ${String(prop)}`)
  }

  defineProperty(_target: T[], prop: string | symbol): boolean {
    return refuse(`define ${String(prop)}`)
  }

  deleteProperty(_target: T[], prop: string | symbol): boolean {
    return refuse(`delete ${String(prop)}`)
  }

  setPrototypeOf(): boolean {
    return refuse('change the prototype')
  }

  preventExtensions(): boolean {
    return refuse('prevent extensions')
  }
}


/**
 * A read-only view of the first `length` events of `log`, which must only ever grow. `Array.isArray` is true,
 * every non-mutating Array method works, and every write throws `TypeError`. The view keeps its length forever.
 */
export function eventsView(log: EventLog, length: number = log.length): readonly SessionEvent[] {
  return new Proxy(log.slots, new ViewHandler(log, length)) as unknown as readonly SessionEvent[]
}

/** @internal The log and length behind a value `eventsView` returned, or `undefined` for any other value. */
export function viewedLog(value: unknown): { readonly log: EventLog; readonly length: number } | undefined {
  if (!Array.isArray(value)) return undefined
  const handler: unknown = (value as unknown as Record<symbol, unknown>)[VIEW]
  return handler instanceof ViewHandler ? handler : undefined
}
