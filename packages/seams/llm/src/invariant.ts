/**
 * No runtime invariant: the model seam appends no session events, and its stream protocol is normalised by
 * `ctx.llm.stream` itself (spec 03 §8).
 */

import { noRuntimeInvariant } from '@logbook/session'

export const { name, apply } = noRuntimeInvariant('llm-invariant')
