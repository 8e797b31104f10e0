/**
 * Errors of the harness loop (spec 03 conventions): `AgentError` with a closed list of codes. Errors of the session
 * core (01) and of persistence (02) pass through unchanged.
 */

/** Every code an `AgentError` can carry. */
export type AgentErrorCode =
  | 'SESSION_ALREADY_EXISTS'
  | 'PERSISTENCE_NOT_CONFIGURED'
  | 'INVALID_OPTIONS'
  | 'DISCARDED'
  | 'DISPOSED'
  | 'SESSION_NEEDS_RESUME'

/** A refused agent operation; `code` is from a closed list. */
export class AgentError extends Error {
  declare readonly code: AgentErrorCode

  constructor(code: AgentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    Object.defineProperty(this, 'code', { value: code, enumerable: true, writable: false })
    this.name = new.target.name
  }
}

/** Exhaustiveness guard for closed unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${String(value)}`)
}
