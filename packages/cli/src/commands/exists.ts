/**
 * Whether an id is taken: live in this process or stored (a corrupt or unsupported stored log counts).
 */

import type { SessionId } from '@logbook/session'
import { isSessionPersistenceError } from '@logbook/session-persistence'
import type { App } from '../app/app.ts'

/**
 * True iff `id` is live in `app` or has a stored log.
 * @throws persistence failures other than `SESSION_NOT_FOUND`, `SESSION_CORRUPT`, `SESSION_FORMAT_UNSUPPORTED`.
 */
export async function sessionExists(app: App, id: string): Promise<boolean> {
  if (app.sessions.get(id as SessionId) !== undefined) return true
  try {
    await app.persistence().readFrom(id, Number.MAX_SAFE_INTEGER)
    return true
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_NOT_FOUND')) return false
    if (isSessionPersistenceError(error, 'SESSION_CORRUPT') || isSessionPersistenceError(error, 'SESSION_FORMAT_UNSUPPORTED')) return true
    throw error
  }
}
