/**
 * Handles on stored sessions (spec 02 §1.1, §4.2): `open(id, 'read' | 'write')` and `create(header)`. A write handle
 * claims the id synchronously, then takes the lock; on failure everything it took is given up.
 */
import { assertSessionHeader, deepFreeze, isValidSessionId, snapshotJsonValue, type SessionHeader } from '@logbook/session'
import type { LockToken } from './backend.ts'
import { readStored } from './classify.ts'
import { about, invalidArgument, SessionPersistenceError } from './errors.ts'
import { HandleImpl } from './handle.ts'
import type { Host } from './host.ts'
import { abandon, lockedScan } from './ownership.ts'
import { begin, beginFor, throwIfAborted } from './prelude.ts'
import { loadStored } from './read.ts'
import { cutTornTail, recoveryOf } from './repair.ts'
import type { OpenMode, OperationOptions, SessionHandle } from './types.ts'
import { describe } from './util.ts'

/** `open(id, mode)` (§4.2): `'write'` claims (sync) → lock → scan → §4.1 → cut a torn tail → stale temps → handle. */
export async function openSession(host: Host, id: string, mode: OpenMode, opts?: OperationOptions): Promise<SessionHandle> {
  const signal = beginFor(host, opts, id)
  if (mode !== 'read' && mode !== 'write') throw invalidArgument(`mode must be "read" or "write", got ${describe(mode)}`, id)
  const { backend } = host
  if (mode === 'read') {
    const state = await loadStored(host, id, 0, signal)
    return new HandleImpl(host, {
      id, mode: 'read', header: state.header, nextSeq: state.nextSeq, revision: state.scan.revision,
      incarnation: state.scan.incarnation, eventState: backend.eventState, recovery: recoveryOf(state), retained: state.events,
    })
  }
  const { claim, result: handle } = await lockedScan(host, id, signal, async (claim, lock, scan) => {
    const token = lock.token!
    throwIfAborted(signal)
    const state = readStored(id, scan, type => host.isKnownType(type))
    let revision = scan.revision
    if (state.torn !== null) {
      revision = (await cutTornTail(host, id, token, state, claim.owner.ownerId, signal)).revision
      throwIfAborted(signal) // the committed cut stays
    }
    await backend.removeStaleTemps?.(token, signal)
    throwIfAborted(signal)
    return new HandleImpl(host, {
      id, mode: 'write', header: state.header, nextSeq: state.nextSeq, revision, incarnation: scan.incarnation,
      eventState: backend.eventState, recovery: recoveryOf(state), retained: state.events, claim, token,
    })
  })
  claim.holder = handle
  return handle
}

/** Validate a header for `create` and return a frozen snapshot. @throws `INVALID_ARGUMENT`. */
function createHeader(header: unknown): SessionHeader {
  if (typeof header !== 'object' || header === null) throw invalidArgument('create expects a session header object')
  const id = (header as { id?: unknown }).id
  if (!isValidSessionId(id)) throw invalidArgument(`invalid session id ${describe(id)}`)
  const snapshot = snapshotJsonValue(header)
  if (snapshot === undefined) throw invalidArgument('the session header is not lossless JSON', id)
  try {
    assertSessionHeader(snapshot, id as SessionHeader['id'])
  } catch (error) {
    throw invalidArgument(`invalid session header: ${describe(error)}`, id, error)
  }
  return deepFreeze(snapshot as SessionHeader)
}

function alreadyExists(id: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_ALREADY_EXISTS', `${about(id)}a stored log already exists`, { sessionId: id })
}

/** `create(header)`: checks header → claim → stored log → lock → stored log again (§1.1). */
export async function createSession(host: Host, header: SessionHeader, opts?: OperationOptions): Promise<SessionHandle> {
  const signal = begin(host, opts)
  const frozen = createHeader(header)
  const id = frozen.id
  const { backend } = host
  const claim = await host.claims.claim(id, 'handle')
  let token: LockToken | undefined
  try {
    await host.ready
    throwIfAborted(signal)
    const handle = await host.queue.run(id, async () => {
      if (await backend.exists(id, signal)) throw alreadyExists(id)
      throwIfAborted(signal)
      token = await backend.lock(id, claim.owner, signal)
      throwIfAborted(signal)
      if (await backend.exists(id, signal)) throw alreadyExists(id)
      throwIfAborted(signal)
      return new HandleImpl(host, {
        id, mode: 'write', header: frozen, nextSeq: 0, revision: null, incarnation: undefined,
        eventState: backend.eventState, recovery: null, claim, token,
      })
    })
    claim.holder = handle
    return handle
  } catch (error) {
    await abandon(host, claim, token)
    throw error
  }
}
