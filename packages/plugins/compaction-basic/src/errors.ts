/**
 * Errors of `@logbook/compaction-basic`. Compaction failures use the seam's `CompactionError` and
 * `ManualCompactionError` (re-exported here); a bad plugin configuration is a `CompactionConfigError`.
 */

import { CodedError } from '@logbook/session'

export { CompactionError, ManualCompactionError, type CompactionErrorCode, type ManualCompactionErrorCode } from '@logbook/compaction'

/** Every code a `CompactionConfigError` can carry. */
export type CompactionConfigErrorCode = 'INVALID_CONFIG'

/** The package name every config message starts with (§2.11). */
export const PACKAGE_NAME = '@logbook/compaction-basic'

/**
 * A configuration that fails §2.11: the message is exactly
 * `invalid config for @logbook/compaction-basic: <path>: <reason>`; the plugin fails to load with it.
 */
export class CompactionConfigError extends CodedError<CompactionConfigErrorCode> {
  /** The offending key path (`thresholdRatio`, `prune.headChars`, `contextWindows[1]`). */
  readonly path: string

  constructor(path: string, reason: string) {
    super('INVALID_CONFIG', `invalid config for ${PACKAGE_NAME}: ${path}: ${reason}`)
    this.path = path
  }
}
