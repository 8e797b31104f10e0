/**
 * Session-level public operations (spec 02 §1.1, §4.2, §4.5): `open`, `create`, `inspect`, `readFrom`. Each runs the
 * prelude (disposed → signal → id), takes a claim synchronously where it writes, and releases what it took on failure.
 */
import {
  assertSessionHeader,
  deepFreeze,
  isValidSessionId,
  openTurnClosers,
  snapshotJsonValue,
  type SessionEvent,
  type SessionHeader,
} from '@logbook/session'
import type { LockToken, PhysicalScan } from './backend.ts'
import type { Claim } from './claims.ts'
import { inheritedCount, readStored, type StoredState } from './classify.ts'
import type { Coordinator } from './coordinator.ts'
import { SessionPersistenceError, sessionNotFound } from './errors.ts'
import { HandleImpl } from './handle.ts'
import { isHolderDead } from './owners.ts'
import { cutTornTail, recoveryOf } from './repair.ts'
import type { ClaimState, OpenMode, OperationOptions, SessionHandle, SessionInspection } from './types.ts'
import { about, describe, invalidArgument, isSeqArgument, throwIfAborted } from './util.ts'

/** Freeze events for a caller when the backend hands out fresh objects (memory events are frozen already). */
function frozenEvents(c: Coordinator, events: SessionEvent[]): readonly SessionEvent[] {
  if (c.backend.eventState === 'detached') for (const event of events) deepFreeze(event)
  return Object.freeze(events)
}

/** Scan `id` (from the record covering `fromSeq`) through its FIFO and run the §4.1 checks; takes nothing, writes nothing. */
async function load(c: Coordinator, id: string, fromSeq: number, signal: AbortSignal): Promise<StoredState<unknown>> {
  await c.ready
  throwIfAborted(signal)
  const scan = await c.serial(id, () => c.backend.scan(id, fromSeq > 0 ? { fromSeq } : {}, signal))
  throwIfAborted(signal)
  if (scan === undefined) throw sessionNotFound(id)
  return readStored(id, scan, type => c.isKnownType(type))
}

/** A write operation's cross-process lock; `token` is cleared when the backend dropped the lock itself. */
export interface HeldLock {
  token: LockToken | undefined
}

/**
 * The start every writing operation on one stored session shares (`open(id, 'write')`, `delete`): claim `id` (at
 * once, or after a retiring live session drained), then in its FIFO take the lock and scan, and run `body` with the
 * claim, the lock and the scan. On any failure the claim and a lock still held are given up; on success the caller
 * owns both and gets the claim back. Call it without awaiting anything first, so the claim is registered
 * synchronously. @throws `SESSION_NOT_FOUND` when nothing is stored, and whatever `body` or the backend throw.
 */
export async function lockedScan<T>(
  c: Coordinator,
  id: string,
  signal: AbortSignal,
  body: (claim: Claim, lock: HeldLock, scan: PhysicalScan<unknown>) => Promise<T>,
): Promise<{ readonly claim: Claim; readonly result: T }> {
  const claim = await c.claim(id, 'handle') // registered before this await (or after a retiring holder drained)
  const lock: HeldLock = { token: undefined }
  try {
    await c.ready
    throwIfAborted(signal)
    const result = await c.serial(id, async () => {
      lock.token = await c.backend.lock(id, claim.owner, signal)
      throwIfAborted(signal)
      const scan = await c.backend.scan(id, {}, signal)
      if (scan === undefined) throw sessionNotFound(id)
      return body(claim, lock, scan)
    })
    return { claim, result }
  } catch (error) {
    await c.abandon(claim, lock.token)
    throw error
  }
}

/** `open(id, mode)` (§4.2): `'write'` claims (sync) → lock → scan → §4.1 → cut a torn tail → stale temps → handle. */
export async function open(c: Coordinator, id: string, mode: OpenMode, opts?: OperationOptions): Promise<SessionHandle> {
  const signal = c.beginFor(opts, id)
  if (mode !== 'read' && mode !== 'write') throw invalidArgument(`mode must be "read" or "write", got ${describe(mode)}`, id)
  if (mode === 'read') {
    const state = await load(c, id, 0, signal)
    return new HandleImpl(c, {
      id, mode: 'read', header: state.header, nextSeq: state.nextSeq, revision: state.scan.revision,
      incarnation: state.scan.incarnation, eventState: c.backend.eventState, recovery: recoveryOf(state),
    })
  }
  const { claim, result: handle } = await lockedScan(c, id, signal, async (claim, lock, scan) => {
    const token = lock.token!
    throwIfAborted(signal)
    const state = readStored(id, scan, type => c.isKnownType(type))
    let revision = scan.revision
    if (state.torn !== null) {
      revision = (await cutTornTail(c, id, token, state, claim.owner.ownerId, signal)).revision
      throwIfAborted(signal) // the committed cut stays
    }
    await c.backend.removeStaleTemps?.(token, signal)
    throwIfAborted(signal)
    return new HandleImpl(c, {
      id, mode: 'write', header: state.header, nextSeq: state.nextSeq, revision, incarnation: scan.incarnation,
      eventState: c.backend.eventState, recovery: recoveryOf(state), retained: state.events, claim, token,
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
export async function create(c: Coordinator, header: SessionHeader, opts?: OperationOptions): Promise<SessionHandle> {
  const signal = c.begin(opts)
  const frozen = createHeader(header)
  const id = frozen.id
  const claim = await c.claim(id, 'handle')
  let token: LockToken | undefined
  try {
    await c.ready
    throwIfAborted(signal)
    const handle = await c.serial(id, async () => {
      if (await c.backend.exists(id, signal)) throw alreadyExists(id)
      throwIfAborted(signal)
      token = await c.backend.lock(id, claim.owner, signal)
      throwIfAborted(signal)
      if (await c.backend.exists(id, signal)) throw alreadyExists(id)
      throwIfAborted(signal)
      return new HandleImpl(c, {
        id, mode: 'write', header: frozen, nextSeq: 0, revision: null, incarnation: undefined,
        eventState: c.backend.eventState, recovery: null, claim, token,
      })
    })
    claim.holder = handle
    return handle
  } catch (error) {
    await c.abandon(claim, token)
    throw error
  }
}

/** `readFrom(id, fromSeq)`: deep-frozen valid events with `seq >= fromSeq` (§4.5). */
export async function readFrom(c: Coordinator, id: string, fromSeq: number, opts?: OperationOptions): Promise<readonly SessionEvent[]> {
  const signal = c.beginFor(opts, id)
  if (!isSeqArgument(fromSeq)) throw invalidArgument(`fromSeq must be a non-negative safe integer, got ${describe(fromSeq)}`, id)
  const state = await load(c, id, fromSeq, signal)
  const skip = Math.max(0, fromSeq - state.startSeq)
  return frozenEvents(c, skip === 0 ? state.events : state.events.slice(skip))
}

/** `inspect(id)`: the stored view plus what a resume would append; commits nothing (§1.3). */
export async function inspect(c: Coordinator, id: string, opts?: OperationOptions): Promise<SessionInspection> {
  const signal = c.beginFor(opts, id)
  const state = await load(c, id, 0, signal)
  const events = frozenEvents(c, state.events)
  const closers = Object.freeze(openTurnClosers(events, { kind: 'interrupted' }))
  const turnEnd = closers.at(-1) as { readonly data: { readonly turn: number } } | undefined
  let claim: ClaimState = 'none'
  if (c.claims.get(id) !== undefined) {
    claim = 'this-process'
  } else {
    const lock = await c.serial(id, () => c.backend.readLock(id, signal))
    throwIfAborted(signal)
    if (lock !== undefined && !isHolderDead(lock.holder)) claim = 'other-process'
  }
  const { scan } = state
  return Object.freeze({
    header: state.header,
    events,
    inheritedEventCount: inheritedCount(state.header),
    revision: scan.revision,
    tornTail: state.torn?.report ?? null,
    openTurn: turnEnd === undefined ? null : turnEnd.data.turn,
    // A turn a live writer holds open is running, not interrupted: a resume could not append closers for it.
    closers: claim === 'none' ? closers : Object.freeze([]),
    claim,
    ...(scan.location === undefined ? {} : { location: scan.location }),
  })
}
