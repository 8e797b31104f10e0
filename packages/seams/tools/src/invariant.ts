/**
 * No runtime invariant: the tool seam appends no session events — the loop logs every call and outcome, and its
 * companion checks them (spec 03 §8).
 */

import { noRuntimeInvariant } from '@logbook/session'

export const { name, apply } = noRuntimeInvariant('tools-invariant')
