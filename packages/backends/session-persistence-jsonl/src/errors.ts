/**
 * How this backend reports failures: always through the seam's `SessionPersistenceError` classes (no own classes,
 * no own codes). System errors become `STORE_IO` with the system error as `cause`.
 */
import { SessionPersistenceCorruptionError, SessionPersistenceError } from '@logbook/session-persistence'
import { errnoCode } from './io.ts'

const prefix = (sessionId: string | undefined): string => (sessionId === undefined ? '' : `session "${sessionId}": `)

/** `STORE_IO` for a failed file-system step; retryable unless `cause` is an `AggregateError` (failed rollback). */
export function storeIoError(sessionId: string | undefined, action: string, cause: unknown, location?: string): SessionPersistenceError {
  const code = errnoCode(cause)
  return new SessionPersistenceError('STORE_IO', `${prefix(sessionId)}${action} failed${code === undefined ? '' : ` (${code})`}`, {
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(location === undefined ? {} : { location }),
    cause,
  })
}

/**
 * Maps anything a hook caught to what it rethrows: persistence errors and non-system errors (abort reasons) pass
 * through unchanged; system errors become `STORE_IO`.
 */
export function toStoreError(error: unknown, sessionId: string | undefined, action: string, location?: string): unknown {
  if (error instanceof SessionPersistenceError) return error
  if (errnoCode(error) !== undefined) return storeIoError(sessionId, action, error, location)
  return error
}

/** `SESSION_CONFLICT`: storage is not in the state the writer expected. */
export function conflictError(sessionId: string, detail: string, location?: string, details?: Record<string, unknown>): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_CONFLICT', `${prefix(sessionId)}${detail}`, {
    sessionId,
    ...(location === undefined ? {} : { location }),
    ...(details === undefined ? {} : { details }),
  })
}

/** `SESSION_ALREADY_EXISTS`: a stored log is in the way of a materialisation. */
export function alreadyExistsError(sessionId: string, location: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_ALREADY_EXISTS', `session "${sessionId}" already exists (${location})`, {
    sessionId,
    location,
  })
}

/** `SESSION_CORRUPT` for an identity problem of the store (e.g. an id stored in two project directories). */
export function identityCorruptError(sessionId: string, detail: string, location: string): SessionPersistenceCorruptionError {
  return new SessionPersistenceCorruptionError(`${prefix(sessionId)}${detail}`, { sessionId, location, detail })
}

/** A `STORE_UNSAFE` / `STORE_FOREIGN` / `STORE_INCOMPATIBLE` error about the store root. */
export function storeError(
  code: 'STORE_UNSAFE' | 'STORE_FOREIGN' | 'STORE_INCOMPATIBLE',
  message: string,
  location: string,
  details?: Record<string, unknown>,
): SessionPersistenceError {
  return new SessionPersistenceError(code, message, { location, ...(details === undefined ? {} : { details }) })
}
