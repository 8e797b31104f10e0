/** Registering a case only where it applies. */
import { it } from 'vitest'

const unregistered = (() => {}) as unknown as typeof it

/**
 * `it`, unless `inapplicable`: a case the backend's capabilities rule out is not registered at all instead of being
 * reported as skipped, so every case a run lists is one that ran (the README's capability table says which apply).
 */
export function itUnless(inapplicable: boolean): typeof it {
  return inapplicable ? unregistered : it
}
