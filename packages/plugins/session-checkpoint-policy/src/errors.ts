/**
 * Errors of the checkpoint policy (spec 02 §7): a hook listener throws `CheckpointError` to fail its point closed.
 */

import { CodedError } from '@logbook/session'

/** Every code a `CheckpointError` can carry. */
export type CheckpointErrorCode = 'CHECKPOINT_FAILED' | 'ABORTED'

/**
 * A checkpoint that did not pass: `CHECKPOINT_FAILED` (the flush failed; `cause` is the persistence error) or
 * `ABORTED` (a tool call's signal fired while its checkpoint ran; `cause` is the signal's reason).
 */
export class CheckpointError extends CodedError<CheckpointErrorCode> {}
