/**
 * node-postgres failures as persistence errors (02 §1.7): a lost or refused connection, a statement timeout, a
 * serialisation failure and other server errors become `STORE_IO` (retryable), a schema changed underneath
 * `STORE_INCOMPATIBLE`; persistence errors pass through. `details.reason` says which fault it was.
 */
import { SessionPersistenceError } from '@logbook/session-persistence'

/** Why a `STORE_IO` from this backend happened (`details.reason`). */
export type FaultReason = 'connection' | 'statement-timeout' | 'serialization' | 'server'

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
const CONNECTION_MESSAGES = [/connection terminated/i, /not queryable/i, /timeout exceeded when trying to connect/i, /connection ended/i]

/** The SQLSTATE (`23505`…) or Node error code of `error`, if any. */
export const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** True iff `error` means the connection is gone or could not be made (the server may or may not have acted). */
export function isConnectionFault(error: unknown): boolean {
  const code = codeOf(error)
  if (code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) return true
  const message = (error as { message?: unknown } | null)?.message
  return code === undefined && typeof message === 'string' && CONNECTION_MESSAGES.some(pattern => pattern.test(message))
}

/** The fault class of a non-persistence error. */
export function faultReason(error: unknown): FaultReason {
  if (isConnectionFault(error)) return 'connection'
  const code = codeOf(error)
  if (code === '57014') return 'statement-timeout'
  if (code === '40001' || code === '40P01') return 'serialization'
  return 'server'
}

const firstLine = (error: unknown): string => String((error as Error)?.message ?? error).split('\n')[0]!

/**
 * Map a failure to the documented codes; `store` names the store in the message (never with a password).
 * A vanished table or column (`42P01`, `42703`, `3F000`) is `STORE_INCOMPATIBLE`: the schema changed underneath.
 */
export function mapFault(error: unknown, store: string, statementTimeoutMs: number): unknown {
  if (error instanceof SessionPersistenceError) return error
  const code = codeOf(error)
  if (code === '42P01' || code === '42703' || code === '3F000') {
    return new SessionPersistenceError('STORE_INCOMPATIBLE', `store ${store}: the schema changed underneath (${firstLine(error)})`, {
      location: store,
      cause: error,
    })
  }
  const reason = faultReason(error)
  const what = reason === 'statement-timeout'
    ? `statement timeout after ${statementTimeoutMs} ms`
    : reason === 'connection' ? `connection failed: ${firstLine(error)}` : firstLine(error)
  return new SessionPersistenceError('STORE_IO', `store ${store}: ${what}${code === undefined ? '' : ` (${code})`}`, {
    location: store,
    cause: error,
    details: { reason, ...(code === undefined ? {} : { code }) },
  })
}
