/**
 * Freezing of stored projection states (03 §1.3 rule 6). A state is frozen once, when stored; a later state that
 * shares parts with it reaches only frozen containers there, so the walk stops at them and costs the new parts only.
 */

/** Freeze `v` and queue it on `stack` when it is a container not yet frozen. */
function reach(v: unknown, stack: object[]): void {
  if ((typeof v !== 'object' || v === null) && typeof v !== 'function') return
  if (Object.isFrozen(v)) return
  Object.freeze(v)
  stack.push(v as object)
}

/**
 * Deep-freeze every container reachable from `value` through enumerable own properties, stopping at containers that
 * are already frozen (earlier states, committed events). Iterative; returns its argument.
 */
export function freezeState<T>(value: T): T {
  // Primitives and already-frozen values need no walk.
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return value
  if (Object.isFrozen(value)) return value
  const stack: object[] = []
  reach(value, stack)
  while (stack.length > 0) {
    const o = stack.pop() as Record<PropertyKey, unknown>
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) reach(o[i], stack)
      continue
    }
    // States are plain data: the enumerable own values are what a fold can reach (and what a checkpoint stores).
    const values = Object.values(o)
    for (let i = 0; i < values.length; i++) reach(values[i], stack)
  }
  return value
}
