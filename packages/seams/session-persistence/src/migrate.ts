/**
 * `migrate(id)` (spec 02 §4.7): rewrite a session of an older store format (no checksums, or an older layout) in the
 * current one, under write ownership like a resume. The log must pass every §4.1 check and core's event validator
 * first (a torn tail is cut as `open(id, 'write')` cuts it), so checksums never vouch for damaged records; the
 * backend keeps the original until the user deletes it.
 */
import type { PhysicalScan } from './backend.ts'
import { assertStoredEvents, readStored } from './classify.ts'
import type { Host } from './host.ts'
import { withWriteOwnership } from './ownership.ts'
import { beginFor, throwIfAborted } from './prelude.ts'
import { cutTornTail } from './repair.ts'
import type { MigrateResult, OperationOptions } from './types.ts'

/**
 * Rewrite stored session `id` (and, where the store format is the whole store, every session in it) in the current
 * store format: checksums on every record, the backend's current layout.
 * @throws `SESSION_NOT_FOUND`, `SESSION_LOCKED`, `SESSION_CORRUPT` / `SESSION_FORMAT_UNSUPPORTED` (a session that fails
 * the read checks: repair or upgrade first), `SESSION_CONFLICT`, `STORE_IO`.
 */
export async function migrateSession(host: Host, id: string, opts?: OperationOptions): Promise<MigrateResult> {
  const signal = beginFor(host, opts, id)
  const isKnown = (type: string): boolean => host.isKnownType(type)
  const result = await withWriteOwnership(host, id, signal, async (claim, lock, scan): Promise<MigrateResult> => {
    const state = readStored(id, scan, isKnown)
    const { backend } = host
    const current = scan.checksums && scan.outdatedLayout !== true
    if (current || backend.migrate === undefined) return { sessionId: id, migrated: false, sessions: [] }
    assertStoredEvents(id, state)
    const token = lock.token!
    throwIfAborted(signal)
    if (state.torn !== null) await cutTornTail(host, id, token, state, claim.owner.ownerId, signal)
    throwIfAborted(signal)
    const verify = (sessionId: string, other: PhysicalScan<unknown>): void => {
      assertStoredEvents(sessionId, readStored(sessionId, other, isKnown))
    }
    const done = await backend.migrate(token, verify, signal)
    return { sessionId: id, migrated: true, scope: done.scope, sessions: done.sessions, original: done.original }
  })
  return Object.freeze(result)
}
