/** `foldProjection` (03 §1.6 step 5): a unit's final state over a list of events, under the registry's rules. */
import type { SessionEvent } from '@logbook/session'
import { applyEvent, initState, toUnit } from './definition.ts'
import type { ProjectionDefinition } from './types.ts'

/**
 * The state `def` reaches over `events`, folded as the registry folds a cell: from `init()`, every event in order,
 * each new state deep-frozen, the same reference kept for unhandled events. Equal events give deep-equal states.
 * @throws ProjectionError `INVALID_DEFINITION`; whatever `init` or `apply` throws; Error "unit <key> returned a
 * Promise" for a thenable result.
 */
export function foldProjection<S>(def: ProjectionDefinition<S, unknown, string>, events: Iterable<SessionEvent>): S {
  const unit = toUnit(def)
  let state = initState(unit)
  for (const event of events) state = applyEvent(unit, state, event)
  return state as S
}
