/**
 * Errors of the persistence seam (spec 02 §1.7): one base class with a closed list of codes, two subclasses with
 * extra fields, a guard, and the exact message builders the spec quotes. Backends (JSONL, SQLite) throw these too.
 */

import { CodedError, SESSION_FORMAT_VERSION, SUPPORTED_SESSION_FORMAT_VERSIONS } from '@logbook/session'

/** Every code a `SessionPersistenceError` can carry (02 §1.7). `PERSISTENCE_NOT_CONFIGURED` belongs to chapter 03. */
export type SessionPersistenceErrorCode =
  | 'SESSION_NOT_FOUND'
  | 'SESSION_ALREADY_EXISTS'
  | 'SESSION_LOCKED'
  | 'SESSION_CONFLICT'
  | 'SESSION_CORRUPT'
  | 'SESSION_FORMAT_UNSUPPORTED'
  | 'SESSION_HANDLE_CLOSED'
  | 'HANDLE_READ_ONLY'
  | 'DELETE_NOT_CONFIRMED'
  | 'INVALID_ARGUMENT'
  | 'CHECKPOINT_AHEAD'
  | 'PERSISTENCE_DISPOSED'
  | 'STORE_IO'
  | 'STORE_UNSAFE'
  | 'STORE_FOREIGN'
  | 'STORE_INCOMPATIBLE'
  | 'SESSION_BUSY'

/** Optional fields of a persistence error. */
export interface SessionPersistenceErrorOptions {
  /** The session the failure concerns. */
  readonly sessionId?: string
  /** Absolute path (or other locator) of the artifact involved. */
  readonly location?: string
  /** Structured detail; `SESSION_LOCKED` carries `holder` (and `lost`), `SESSION_CONFLICT` `index`/`expected`/`actual`. */
  readonly details?: Readonly<Record<string, unknown>>
  /** The underlying error (system error, `AggregateError`, core `SessionError`, last write error). */
  readonly cause?: unknown
}

/** A documented persistence failure: `code` is from the closed union, `message` is one line. */
export class SessionPersistenceError extends CodedError<SessionPersistenceErrorCode> {
  readonly sessionId?: string
  readonly location?: string
  readonly details?: Readonly<Record<string, unknown>>

  constructor(code: SessionPersistenceErrorCode, message: string, options: SessionPersistenceErrorOptions = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause })
    if (options.sessionId !== undefined) this.sessionId = options.sessionId
    if (options.location !== undefined) this.location = options.location
    if (options.details !== undefined) this.details = options.details
  }
}

/** Options of a corruption error: where the first defect is and what it is. */
export interface CorruptionErrorOptions extends SessionPersistenceErrorOptions {
  /** 1-based JSONL line of the defect (the header is line 1). */
  readonly line?: number
  /** Seq at which the defect was expected (SQLite: the defect row's seq). */
  readonly seq?: number
  /** What is wrong, e.g. `unparsable record followed by turn/end at line 9`. */
  readonly detail: string
}

/** `SESSION_CORRUPT`: corruption (§4.1), bad header, identity or lineage mismatch; nothing was rewritten. */
export class SessionPersistenceCorruptionError extends SessionPersistenceError {
  declare readonly code: 'SESSION_CORRUPT'
  readonly line?: number
  readonly seq?: number
  readonly detail: string

  constructor(message: string, options: CorruptionErrorOptions) {
    super('SESSION_CORRUPT', message, options)
    if (options.line !== undefined) this.line = options.line
    if (options.seq !== undefined) this.seq = options.seq
    this.detail = options.detail
  }
}

/** Which side of this build a refused format is on. */
export type FormatDirection = 'newer' | 'older'

/** Options of a format error. */
export interface FormatErrorOptions extends SessionPersistenceErrorOptions {
  readonly direction: FormatDirection
  /** The stored format version, or the unknown event type. */
  readonly found: number | string
  /** The format version this build reads (`SESSION_FORMAT_VERSION`). */
  readonly supported: number
}

/** `SESSION_FORMAT_UNSUPPORTED`: header version ≠ supported, or an unknown non-ignorable event type (`newer`). */
export class SessionFormatUnsupportedError extends SessionPersistenceError {
  declare readonly code: 'SESSION_FORMAT_UNSUPPORTED'
  readonly direction: FormatDirection
  readonly found: number | string
  readonly supported: number

  constructor(message: string, options: FormatErrorOptions) {
    super('SESSION_FORMAT_UNSUPPORTED', message, options)
    this.direction = options.direction
    this.found = options.found
    this.supported = options.supported
  }
}

/** True iff `error` is a `SessionPersistenceError` (any realm-local subclass), optionally with `code`. */
export function isSessionPersistenceError<C extends SessionPersistenceErrorCode>(
  error: unknown,
  code?: C,
): error is SessionPersistenceError & { readonly code: C } {
  return error instanceof SessionPersistenceError && (code === undefined || error.code === code)
}

/**
 * True iff a failed write may be retried (02 §2.4): `STORE_IO` whose cause is not an `AggregateError` (an
 * `AggregateError` cause means the rollback failed too, which is terminal). Every other code is terminal.
 */
export function isRetryableWriteError(error: unknown): boolean {
  return isSessionPersistenceError(error, 'STORE_IO') && !(error.cause instanceof AggregateError)
}

const rawLog = (location: string | undefined): string => (location === undefined ? '' : ` (raw log: ${location})`)

/** The oldest session format this build reads: an older one has no upgrade path. */
const oldestReadable = (): number => SUPPORTED_SESSION_FORMAT_VERSIONS[0] ?? SESSION_FORMAT_VERSION

/**
 * `SESSION_FORMAT_UNSUPPORTED` for a stored header version this build does not read (02 §1.7 exact wording):
 * above `supported` it is `newer`, else `older` (below the oldest readable version).
 */
export function formatVersionError(
  sessionId: string,
  found: number,
  supported: number,
  location?: string,
): SessionFormatUnsupportedError {
  const newer = found > supported
  const message = newer
    ? `session "${sessionId}" was written by a newer Logbook (format ${found}, this build reads ${supported}): upgrade Logbook${rawLog(location)}`
    : `session "${sessionId}" uses format ${found}, older than ${oldestReadable()}; there is no upgrade path${rawLog(location)}`
  return new SessionFormatUnsupportedError(message, {
    sessionId,
    ...(location === undefined ? {} : { location }),
    direction: newer ? 'newer' : 'older',
    found,
    supported,
  })
}

/** `SESSION_FORMAT_UNSUPPORTED` (`newer`) for a stored non-ignorable event type this build does not know. */
export function unknownEventTypeError(
  sessionId: string,
  type: string,
  supported: number,
  location?: string,
): SessionFormatUnsupportedError {
  return new SessionFormatUnsupportedError(
    `session "${sessionId}" contains event type ${type} unknown to this build (written by a newer Logbook or a plugin that is not loaded)${rawLog(location)}`,
    {
      sessionId,
      ...(location === undefined ? {} : { location }),
      direction: 'newer',
      found: type,
      supported,
      details: { type },
    },
  )
}

/** `SESSION_NOT_FOUND` with the exact message `session "<id>" not found`. */
export function sessionNotFound(sessionId: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_NOT_FOUND', `session "${sessionId}" not found`, { sessionId })
}

/** The message chapter 03 raises `PERSISTENCE_NOT_CONFIGURED` with (02 §4.3 step 1); exported for callers. */
export const PERSISTENCE_NOT_CONFIGURED_MESSAGE =
  'cannot resume: session persistence is not configured (load a session-persistence backend)'

/** The message prefix every error about one session carries (02 §1.7): `session "<id>": `. */
export function about(sessionId: string): string {
  return `session "${sessionId}": `
}

/** `INVALID_ARGUMENT` with a `session "<id>": ` prefix when an id is involved. */
export function invalidArgument(message: string, sessionId?: string, cause?: unknown): SessionPersistenceError {
  return new SessionPersistenceError('INVALID_ARGUMENT', sessionId === undefined ? message : about(sessionId) + message, {
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(cause === undefined ? {} : { cause }),
  })
}
