/** Errors of `@logbook/session-search` (spec 04 §6): one class with a closed list of codes. */

import { CodedError } from '@logbook/session'

/** Every code a `SessionSearchError` can carry. */
export type SessionSearchErrorCode =
  | 'INVALID_QUERY'
  | 'INVALID_ARGUMENT'
  | 'INDEX_PATH_REQUIRED'
  | 'INDEX_UNAVAILABLE'
  | 'SEARCH_DISPOSED'

/** The closed list of codes, in the order spec 04 §6 names them. */
export const SESSION_SEARCH_ERROR_CODES: readonly SessionSearchErrorCode[] = Object.freeze([
  'INVALID_QUERY', 'INVALID_ARGUMENT', 'INDEX_PATH_REQUIRED', 'INDEX_UNAVAILABLE', 'SEARCH_DISPOSED',
])

/** A refused or failed search call, with a code from `SessionSearchErrorCode` and a one-line message. */
export class SessionSearchError extends CodedError<SessionSearchErrorCode> {}

/** True iff `error` is a `SessionSearchError`, with `code` when given. */
export function isSessionSearchError(error: unknown, code?: SessionSearchErrorCode): error is SessionSearchError {
  return error instanceof SessionSearchError && (code === undefined || error.code === code)
}

/** The text of a thrown value on one line: an Error's message, else its string form. */
export function messageOf(error: unknown): string {
  let text: string
  try {
    text = error instanceof Error ? error.message : String(error)
  } catch {
    text = Object.prototype.toString.call(error)
  }
  return text.split(/\r?\n/).map(part => part.trim()).filter(part => part !== '').join(' ')
}

/** `INVALID_QUERY` naming the query and what is wrong with it. */
export function invalidQuery(text: string, reason: string): SessionSearchError {
  return new SessionSearchError('INVALID_QUERY', `invalid search query ${JSON.stringify(text)}: ${reason}`)
}

/** `INVALID_ARGUMENT` for a bad option. */
export function invalidArgument(message: string): SessionSearchError {
  return new SessionSearchError('INVALID_ARGUMENT', message)
}

/** `INDEX_UNAVAILABLE`: the index file at `path` cannot be opened, read or written. */
export function indexUnavailable(path: string, cause: unknown): SessionSearchError {
  return new SessionSearchError('INDEX_UNAVAILABLE', `search index ${path} cannot be used: ${messageOf(cause)}`, { cause })
}

/** `SEARCH_DISPOSED`: the plugin was disposed. */
export function searchDisposed(): SessionSearchError {
  return new SessionSearchError('SEARCH_DISPOSED', 'session search is disposed')
}
