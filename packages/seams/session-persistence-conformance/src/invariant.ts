/**
 * No runtime invariant: this private package is a test suite and loads no plugin at runtime.
 */

import { noRuntimeInvariant } from '@logbook/session'

export const { name, apply } = noRuntimeInvariant('session-persistence-conformance-invariant')
