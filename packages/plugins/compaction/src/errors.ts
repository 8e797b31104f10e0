/**
 * Errors of the compaction seam (spec 03 §2.6, §2.8): one class per role, each with a closed list of codes. The
 * same codes are recorded in `compaction/end.error.code` when a bracket closes with a failure.
 */

import { CodedError } from '@logbook/session'

/** Every code a `CompactionError` can carry (§2.6). */
export type CompactionErrorCode =
  | 'BUSY'
  | 'NO_OPEN_TURN'
  | 'INVALID_SPAN'
  | 'CORRUPT_SURFACE'
  | 'CHANGED'
  | 'CANCELLED'
  | 'SUMMARY_FAILED'
  | 'COMMIT_FAILED'
  | 'COMPACTION_FAILED'
  | 'PERSISTENCE_FAILED'

/** The codes of §2.6, in the order the spec lists them. */
export const COMPACTION_ERROR_CODES: readonly CompactionErrorCode[] = Object.freeze([
  'BUSY', 'NO_OPEN_TURN', 'INVALID_SPAN', 'CORRUPT_SURFACE', 'CHANGED', 'CANCELLED', 'SUMMARY_FAILED',
  'COMMIT_FAILED', 'COMPACTION_FAILED', 'PERSISTENCE_FAILED',
])

/** The codes `compactNow` can reject with (§2.8, "Manual" step 5). */
export type ManualCompactionErrorCode = Exclude<CompactionErrorCode, 'NO_OPEN_TURN' | 'INVALID_SPAN'>

/** Options of a compaction error: the underlying failure, when there is one. */
export interface CompactionErrorOptions {
  readonly cause?: unknown
}

/** A compaction that was refused or failed; `code` is from a closed list and `message` is exact. */
export class CompactionError extends CodedError<CompactionErrorCode> {
  constructor(code: CompactionErrorCode, message: string, options?: CompactionErrorOptions) {
    super(code, message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined)
  }
}

/** A failed `compactNow` (§2.8): the same codes and messages as the region transaction, minus the span codes. */
export class ManualCompactionError extends CompactionError {
  declare readonly code: ManualCompactionErrorCode

  constructor(code: ManualCompactionErrorCode, message: string, options?: CompactionErrorOptions) {
    super(code, message, options)
  }
}

/**
 * The `NO_OPEN_TURN` refusal of §2.2 ("compaction requires an open turn"), shared by every path that needs an owner
 * turn (the region transaction with owner `'turn'`, the pruner).
 */
export function noOpenTurnError(): CompactionError {
  return new CompactionError('NO_OPEN_TURN', 'compaction requires an open turn')
}

/** True iff `value` is a `CompactionError` (any subclass). */
export function isCompactionError(value: unknown): value is CompactionError {
  return value instanceof CompactionError
}
