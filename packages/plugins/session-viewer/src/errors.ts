/** Errors of `@logbook/session-viewer`: one class with a closed list of codes. */

import { CodedError, messageOf } from '@logbook/session'

/** Every code a `SessionViewerError` can carry. */
export type SessionViewerErrorCode =
  /** The server could not listen on 127.0.0.1 at the configured port (taken, not allowed). */
  | 'LISTEN_FAILED'
  /** `url()` was asked before the server listened, or after it closed. */
  | 'NOT_LISTENING'
  /** Events handed to the renderer are not a log: their seqs are not contiguous from 0. */
  | 'INVALID_LOG'

/** The closed list of codes. */
export const SESSION_VIEWER_ERROR_CODES: readonly SessionViewerErrorCode[] = Object.freeze(['LISTEN_FAILED', 'NOT_LISTENING', 'INVALID_LOG'])

/** A viewer failure with a code from `SessionViewerErrorCode` and a one-line message. */
export class SessionViewerError extends CodedError<SessionViewerErrorCode> {}

/** The message of a thrown value on one line (core's `messageOf`, line breaks folded). */
export function lineOf(error: unknown): string {
  return messageOf(error).split(/\r?\n/).map(part => part.trim()).filter(part => part !== '').join(' ')
}
