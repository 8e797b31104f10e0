/**
 * `remove` (02 §5 "Delete"): under claim and lock with the revision checked, the session directory is renamed into
 * `<root>/.deleted/`, both parents are fsynced, the lock is unlinked, then the moved directory is removed (leftovers
 * are removed at the next plugin start).
 */
import { closeSync, fstatSync, openSync } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { sessionNotFound } from '@logbook/session-persistence'
import { ensureDir, unlinkIfPresent } from './durable-fs.ts'
import { conflictError, toStoreError } from './errors.ts'
import { syncDir } from './io.ts'
import { encodeId } from './layout.ts'
import { parseRevision, readTail, revisionOf } from './revision.ts'
import { dropHeldLock, verifySessionLock } from './session-lock.ts'
import type { JsonlStore } from './store.ts'
import type { JsonlLockToken } from './types.ts'

/** Deletes the stored session of `token` when it is at `expectRevision`; returns where it was. */
export async function removeSession(store: JsonlStore, token: JsonlLockToken, expectRevision: string): Promise<{ location?: string }> {
  const id = token.sessionId
  await verifySessionLock(token)
  const location = await store.find(id)
  if (location === undefined) throw sessionNotFound(id)
  try {
    const fd = openSync(location.file, 'r')
    let current: string
    try {
      const { size } = fstatSync(fd)
      const parsed = parseRevision(expectRevision)
      current = parsed === undefined ? '' : revisionOf(parsed.storeId, parsed.incarnation, size, readTail(fd, size))
    } finally {
      closeSync(fd)
    }
    if (current !== expectRevision) throw conflictError(id, `revision ${expectRevision} is not current`, location.file)
    const { writer } = token
    if (writer.fd !== undefined) closeSync(writer.fd)
    writer.fd = undefined
    const sessionDir = dirname(location.file)
    const moved = join(store.layout.deletedDir, `${encodeId(id)}.${token.owner.ownerId}`)
    await ensureDir(store.layout.deletedDir, store.durability)
    await rename(sessionDir, moved)
    await syncDir(dirname(sessionDir), store.durability)
    await syncDir(store.layout.deletedDir, store.durability)
    await unlinkIfPresent(token.lockPath)
    writer.released = true
    dropHeldLock(writer.lock)
    writer.lock = undefined
    writer.location = undefined
    try {
      await rm(moved, { recursive: true, force: true })
    } catch {
      // The session is already gone from its place; the next plugin start removes what is left in `.deleted`.
    }
    return { location: location.file }
  } catch (error) {
    throw toStoreError(error, id, 'deleting the session', location.file)
  }
}
