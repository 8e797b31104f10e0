/** Errors of the projection registry (spec 03 §1.2): one class with a closed list of codes. */

import { CodedError, printValue } from '@logbook/session'
import { PERSISTENCE_NOT_CONFIGURED_MESSAGE } from '@logbook/session-persistence'

/** Every code a `ProjectionError` can carry. */
export type ProjectionErrorCode = 'INVALID_DEFINITION' | 'DUPLICATE_KEY' | 'PERSISTENCE_NOT_CONFIGURED'

/** The closed list of codes, in the order the spec names them. */
export const PROJECTION_ERROR_CODES: readonly ProjectionErrorCode[] = Object.freeze([
  'INVALID_DEFINITION', 'DUPLICATE_KEY', 'PERSISTENCE_NOT_CONFIGURED',
])

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
  const name = printValue(key)
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
