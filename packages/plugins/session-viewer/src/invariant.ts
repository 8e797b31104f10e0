/**
 * No runtime invariant: the viewer only reads stored sessions and owns no event type, so it has no relation between
 * events to check.
 */
import { noRuntimeInvariant } from '@logbook/session'

export const { name, apply } = noRuntimeInvariant('session-viewer-invariant')
