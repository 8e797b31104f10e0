/**
 * No runtime invariant: the CLI is an application that drives the other packages and owns no session event type,
 * so it has no relation of its own to check.
 */

import { noRuntimeInvariant } from '@logbook/session'

export const { name, apply } = noRuntimeInvariant('cli-invariant')
