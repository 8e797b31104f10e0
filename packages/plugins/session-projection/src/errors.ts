/** Errors of the projection registry (spec 03 §1.2): one class with a closed list of codes. */

import { CodedError } from '@logbook/session'

/** Every code a `ProjectionError` can carry. */
export type ProjectionErrorCode = 'INVALID_DEFINITION' | 'DUPLICATE_KEY' | 'PERSISTENCE_NOT_CONFIGURED'

/** The closed list of codes, in the order the spec names them. */
export const PROJECTION_ERROR_CODES: readonly ProjectionErrorCode[] = Object.freeze([
  'INVALID_DEFINITION', 'DUPLICATE_KEY', 'PERSISTENCE_NOT_CONFIGURED',
])

/**
 * The message `coldSnapshot` rejects with when no persistence backend is loaded: spec 02 §1.7 has callers raise
 * `PERSISTENCE_NOT_CONFIGURED` with 02 §4.3's text, verbatim.
 */
export const PERSISTENCE_NOT_CONFIGURED_MESSAGE =
  'cannot resume: session persistence is not configured (load a session-persistence backend)'

/** A refused registry call, with a code from `ProjectionErrorCode` and an exact one-line message. */
export class ProjectionError extends CodedError<ProjectionErrorCode> {
  /** The projection key involved, when there is one. */
  readonly key?: string

  constructor(code: ProjectionErrorCode, message: string, key?: string) {
    super(code, message)
    if (key !== undefined) this.key = key
  }
}

/** `INVALID_DEFINITION` with the spec's message shape. */
export function invalidDefinition(key: unknown, reason: string): ProjectionError {
  const name = describeValue(key)
  return new ProjectionError('INVALID_DEFINITION', `invalid projection definition ${name}: ${reason}`,
    typeof key === 'string' ? key : undefined)
}

/** `DUPLICATE_KEY` with the spec's message. */
export function duplicateKey(key: string): ProjectionError {
  return new ProjectionError('DUPLICATE_KEY', `projection key ${key} is already registered`, key)
}

/** `PERSISTENCE_NOT_CONFIGURED` with 02 §4.3's message. */
export function persistenceNotConfigured(): ProjectionError {
  return new ProjectionError('PERSISTENCE_NOT_CONFIGURED', PERSISTENCE_NOT_CONFIGURED_MESSAGE)
}

/** `String(value)`, never throwing (a hostile `toString` prints its tag instead). */
export function describeValue(value: unknown): string {
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/** The text of a thrown value: an Error's message, else its string form. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  return describeValue(error)
}
