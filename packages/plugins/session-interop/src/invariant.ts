/**
 * No runtime invariant: the package converts whole logs outside any store and appends nothing to a live session;
 * every session it returns has already passed the session and compaction relation rules.
 */

import { noRuntimeInvariant } from '@logbook/session'

export const { name, apply } = noRuntimeInvariant('session-interop-invariant')
