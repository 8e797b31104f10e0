/**
 * The package's error class and its closed list of codes. Every refusal is one line naming the source file and
 * what was wrong with it; nothing has been written when one is thrown (importers only read).
 */

import { CodedError } from '@logbook/session'

/** Why an import was refused. */
export type InteropErrorCode =
  | 'SOURCE_UNREADABLE'
  | 'SOURCE_EMPTY'
  | 'SOURCE_NOT_JSON'
  | 'SOURCE_MALFORMED'
  | 'INVALID_SESSION_ID'
  | 'IMPORT_INVALID'
  | 'SESSION_ALREADY_EXISTS'

/** The closed list of `InteropErrorCode`s. */
export const INTEROP_ERROR_CODES: readonly InteropErrorCode[] = Object.freeze([
  'SOURCE_UNREADABLE', 'SOURCE_EMPTY', 'SOURCE_NOT_JSON', 'SOURCE_MALFORMED', 'INVALID_SESSION_ID', 'IMPORT_INVALID',
  'SESSION_ALREADY_EXISTS',
])

/** A refused import: `message` is one line, prefixed with the source file when one is known (not for a stored-id conflict). */
export class InteropError extends CodedError<InteropErrorCode> {}

/** True iff `error` is an `InteropError` (with `code`, when given). */
export function isInteropError(error: unknown, code?: InteropErrorCode): error is InteropError {
  return error instanceof InteropError && (code === undefined || error.code === code)
}
