/**
 * No runtime invariant: the scripted model appends no session events; its stream is normalised by `ctx.llm`
 * (spec 03 §8).
 */

import { noRuntimeInvariant } from '@logbook/session'

export const { name, apply } = noRuntimeInvariant('llm-scripted-invariant')
