/**
 * How the automatic paths end a failed compaction (spec 03 §2.7 item 7, §2.8): the one failure the loop must see is
 * rethrown, a cancellation stays silent, and anything else only warns so the turn continues.
 */

import { isCompactionError } from '@logbook/compaction'
import { messageOf } from '@logbook/session'
import type { CompactionHost } from './host.ts'

/**
 * Contain `error` from a pressure or overflow compaction: `COMPACTION_FAILED` (a bracket that could not be closed) is
 * rethrown so the loop ends the owner turn; `CANCELLED` is dropped silently; any other failure is warned as
 * `warning(<message>)`.
 * @throws CompactionError `COMPACTION_FAILED`, unchanged.
 */
export function containFailure(host: CompactionHost, error: unknown, warning: (message: string) => string): void {
  if (isCompactionError(error) && error.code === 'COMPACTION_FAILED') throw error
  if (isCompactionError(error) && error.code === 'CANCELLED') return
  host.warn(warning(messageOf(error)))
}
