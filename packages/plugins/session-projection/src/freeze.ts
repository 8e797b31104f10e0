/**
 * Freezing of stored projection states (03 §1.3 rule 6). A state is frozen once, when stored; a later state that
 * shares parts with it reaches only frozen containers there, so the walk stops at them and costs the new parts only.
 */

const { freeze, isFrozen, hasOwn } = Object
const isArray = Array.isArray

/** True for a container not yet frozen: an object or function the walk still has to freeze and descend. */
function open(v: unknown): v is object {
  return ((typeof v === 'object' && v !== null) || typeof v === 'function') && !isFrozen(v)
}

/**
 * Deep-freeze every container reachable from `value` through enumerable own properties, stopping at containers that
 * are already frozen (earlier states, committed events). Iterative; returns its argument.
 */
export function freezeState<T>(value: T): T {
  // Primitives and already-frozen values need no walk.
  if (!open(value)) return value
  freeze(value)
  // Most new states hold at most one new container: the stack is made only when one is found.
  let stack: object[] | undefined
  for (let o: object | undefined = value; o !== undefined; o = stack?.pop()) {
    if (isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const v: unknown = o[i]
        if (open(v)) (stack ??= []).push(freeze(v))
      }
      continue
    }
    // States are plain data: the enumerable own values are what a fold can reach (and what a checkpoint stores).
    const record = o as Record<string, unknown>
    for (const key in record) {
      if (!hasOwn(record, key)) continue
      const v = record[key]
      if (open(v)) (stack ??= []).push(freeze(v))
    }
  }
  return value
}
