/**
 * `delete(id, confirmation)` (spec 02 §1.1): the exact confirmation, then claim → lock → the scanned revision must be
 * the confirmed one → the backend removes log, checkpoint and lock together.
 */
import { about, SessionPersistenceError } from './errors.ts'
import type { Host } from './host.ts'
import { lockedScan } from './ownership.ts'
import { beginFor, isPlainObject, throwIfAborted } from './prelude.ts'
import type { DeleteConfirmation, DeleteResult, OperationOptions } from './types.ts'

function notConfirmed(id: string): SessionPersistenceError {
  return new SessionPersistenceError(
    'DELETE_NOT_CONFIRMED',
    `${about(id)}delete requires exactly { confirm: 'delete-session', sessionId, revision }`,
    { sessionId: id },
  )
}

/** `delete(id, confirmation)`: exact confirmation → claim → lock → current revision → remove. */
export async function deleteSession(host: Host, id: string, confirmation: DeleteConfirmation, opts?: OperationOptions): Promise<DeleteResult> {
  const signal = beginFor(host, opts, id)
  const conf = confirmation as unknown
  if (!isPlainObject(conf) || Object.keys(conf).length !== 3 || conf.confirm !== 'delete-session'
    || conf.sessionId !== id || typeof conf.revision !== 'string') {
    throw notConfirmed(id)
  }
  const revision = conf.revision
  const { claim, result } = await lockedScan(host, id, signal, async (_claim, lock, scan) => {
    if (scan.revision !== revision) {
      throw new SessionPersistenceError('SESSION_CONFLICT', `${about(id)}revision ${revision} is not current`, {
        sessionId: id,
        details: { expected: revision, actual: scan.revision },
      })
    }
    throwIfAborted(signal)
    const removed = await host.backend.remove(lock.token!, revision, signal)
    lock.token = undefined // the backend removed the lock with the log
    return removed
  })
  host.claims.release(claim)
  return Object.freeze({ sessionId: id, ...(result.location === undefined ? {} : { location: result.location }) })
}
