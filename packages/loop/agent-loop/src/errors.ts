/**
 * Errors of the harness loop (spec 03 conventions): `AgentError` with a closed list of codes. Errors of the session
 * core (01) and of persistence (02) pass through unchanged.
 */

import { CodedError } from '@logbook/session'

/** Every code an `AgentError` can carry. */
export type AgentErrorCode =
  | 'SESSION_ALREADY_EXISTS'
  | 'PERSISTENCE_NOT_CONFIGURED'
  | 'INVALID_OPTIONS'
  | 'DISCARDED'
  | 'DISPOSED'
  | 'SESSION_NEEDS_RESUME'
  | 'INPUT_QUEUED'
  | 'INVALID_INPUT'
  | 'INVALID_CONTEXT_SECTION'
  | 'CONTEXT_SECTION_TAKEN'
  | 'SESSION_NOT_LIVE'
  | 'INVALID_WATCH'
  | 'WATCH_OVERFLOW'

/** A refused agent operation; `code` is from a closed list (read-only), `cause` as given. */
export class AgentError extends CodedError<AgentErrorCode> {}
