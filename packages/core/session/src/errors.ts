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
 * The base of every coded Logbook error: `code` is set once, enumerable and read-only, `name` is the concrete class
 * name, and `options.cause` is passed to `Error` as given. A subclass narrows `C` to its closed union and adds its
 * own fields; it need not repeat this constructor.
 */
export class CodedError<C extends string> extends Error {
  declare readonly code: C

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options)
    Object.defineProperty(this, 'code', { value: code, enumerable: true, writable: false })
    this.name = new.target.name
  }
}

/** A session-core failure with a code and an exact one-line message; `index` names the seed entry when set. */
export class SessionError extends CodedError<SessionErrorCode> {
  readonly index?: number

  constructor(code: SessionErrorCode, message: string, index?: number) {
    super(code, message)
    if (index !== undefined) this.index = index
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

const CODE = /^[A-Z][A-Z0-9_]*$/

/** The `code` a thrown value carries when it is an UPPER_SNAKE string (every Logbook error's), else `undefined`. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code
  return typeof code === 'string' && CODE.test(code) ? code : undefined
}

/** The message of a thrown value: its `message` when that is a string (any `Error`), else `printValue(error)`. */
export function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message
  return typeof message === 'string' ? message : printValue(error)
}

/** A value for a message: a string JSON-quoted, an `Error` as its message, anything else as `printValue`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value instanceof Error) return value.message
  return printValue(value)
}

/**
 * Exhaustiveness guard for closed unions: reached only when a value escaped its type.
 * @throws Error `unexpected value <value>`.
 */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${printValue(value)}`)
}
