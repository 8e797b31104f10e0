/**
 * Reading a stored session without taking ownership (read mode): its header and valid events, torn tail
 * excluded.
 */

import type { SessionEvent, SessionHeader } from '@logbook/session'
import type { SessionPersistence } from '@logbook/session-persistence'

/** A stored session as read. */
export interface StoredSession {
  readonly header: SessionHeader
  readonly events: readonly SessionEvent[]
}

/**
 * Read `id` in read mode: nothing is locked or written.
 * @throws the persistence errors of `open(id, 'read')` (`SESSION_NOT_FOUND`, `SESSION_CORRUPT`, …).
 */
export async function readStored(persistence: SessionPersistence, id: string): Promise<StoredSession> {
  const handle = await persistence.open(id, 'read')
  try {
    return { header: handle.header, events: await handle.read(0) }
  } finally {
    await handle.close()
  }
}
