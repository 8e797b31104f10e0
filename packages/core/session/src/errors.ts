/** Errors of the session core (spec 01 §11): one class per role, each with a closed list of codes. */

/** Every code a `SessionError` can carry. */
export type SessionErrorCode =
  | 'NOT_JSON'
  | 'INVALID_EVENT'
  | 'INVALID_SURFACE'
  | 'INVALID_SEED'
  | 'INVALID_HEADER'
  | 'INVALID_SESSION_ID'
  | 'REENTRANT_APPEND'
  | 'RESERVED_EVENT'
  | 'UNKNOWN_EVENT_TYPE'
  | 'SESSION_ALREADY_EXISTS'
  | 'ALREADY_ATTACHED'
  | 'ALREADY_ANNOUNCED'
  | 'SESSION_NOT_LIVE'
  | 'SESSION_NOT_FOUND'
  | 'INVALID_BOUNDARY'
  | 'SESSION_INVARIANT'
  | 'MALFORMED_CHUNK_ROW'

/** Codes a fork raises, in the order they are checked (01 §7). */
export type SessionForkErrorCode = 'SESSION_ALREADY_EXISTS' | 'SESSION_NOT_FOUND' | 'SESSION_NOT_LIVE' | 'INVALID_BOUNDARY'

/**
 * The shared base of the coded error classes of other Logbook packages: `code` is set once, enumerable and
 * read-only, `name` is the concrete class name, and `options.cause` is passed to `Error` as given. A subclass narrows
 * `C` to its closed union and adds its own fields; it need not repeat this constructor.
 */
export class CodedError<C extends string> extends Error {
  declare readonly code: C

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options)
    Object.defineProperty(this, 'code', { value: code, enumerable: true, writable: false })
    this.name = new.target.name
  }
}

/**
 * A session-core failure with a code and an exact one-line message; `index` names the seed entry when set. It
 * extends `Error` directly, as 01 §11 declares it.
 */
export class SessionError extends Error {
  declare readonly code: SessionErrorCode
  readonly index?: number

  constructor(code: SessionErrorCode, message: string, index?: number) {
    super(message)
    Object.defineProperty(this, 'code', { value: code, enumerable: true, writable: false })
    if (index !== undefined) this.index = index
    this.name = new.target.name
  }
}

/** A fork that was refused (01 §7); the parent is untouched and no child remains. */
export class SessionForkError extends SessionError {
  declare readonly code: SessionForkErrorCode
  constructor(code: SessionForkErrorCode, message: string) {
    super(code, message)
  }
}

/** A turn/step/tool relation the invariant companion vetoed (01 §9). */
export class SessionInvariantError extends SessionError {
  declare readonly code: 'SESSION_INVARIANT'
  constructor(sessionId: string, detail: string) {
    super('SESSION_INVARIANT', `session "${sessionId}" invariant: ${detail}`)
  }
}

/** A packed chunk row that does not decode (01 §10). */
export class ChunkRowError extends SessionError {
  declare readonly code: 'MALFORMED_CHUNK_ROW'
  constructor(tag: string, why: string) {
    super('MALFORMED_CHUNK_ROW', `malformed ${tag} storage row: ${why}`)
  }
}

/** A seed-path failure (01 §5.2): the message prefixed `seed event at index <i>: `, with `index = i`. */
export function seedError(code: SessionErrorCode, message: string, index: number): SessionError {
  return new SessionError(code, `seed event at index ${index}: ${message}`, index)
}

/** `String(value)` for a `<x>` placeholder (01 §0), or its `Object.prototype.toString` tag when conversion throws. */
export function printValue(value: unknown): string {
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/** Exhaustiveness guard for closed unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${printValue(value)}`)
}
