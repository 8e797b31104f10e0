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
import type { LockToken } from './backend.ts'
import type { Claim } from './claims.ts'
import { readStored } from './classify.ts'
import type { Coordinator } from './coordinator.ts'
import { SessionPersistenceError, sessionNotFound } from './errors.ts'
import { HandleImpl } from './handle.ts'
import { isHolderDead } from './owners.ts'
import type { ClaimState, OpenMode, OperationOptions, SessionHandle, SessionInspection } from './types.ts'
import { describe, invalidArgument, throwIfAborted } from './util.ts'

const isSeqArgument = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/** Freeze events for a caller when the backend hands out fresh objects (memory events are frozen already). */
function frozenEvents(c: Coordinator, events: SessionEvent[]): readonly SessionEvent[] {
  if (c.backend.eventState === 'detached') for (const event of events) deepFreeze(event)
  return Object.freeze(events)
}

/** `open(id, mode)` (§4.2). */
export async function open(c: Coordinator, id: string, mode: OpenMode, opts?: OperationOptions): Promise<SessionHandle> {
  const signal = c.beginFor(opts, id)
  if (mode !== 'read' && mode !== 'write') throw invalidArgument(`mode must be "read" or "write", got ${describe(mode)}`, id)
  if (mode === 'read') return openRead(c, id, signal)
  const pending = c.claim(id, 'handle')
  const claim = pending instanceof Promise ? await pending : pending
  let token: LockToken | undefined
  try {
    await c.ready
    throwIfAborted(signal)
    const handle = await c.serial(id, async () => {
      token = await c.backend.lock(id, claim.owner, signal)
      throwIfAborted(signal)
      const scan = await c.backend.scan(id, {}, signal)
      if (scan === undefined) throw sessionNotFound(id)
      throwIfAborted(signal)
      const state = readStored(id, scan, type => c.isKnownType(type))
      let revision = scan.revision
      let recovery: HandleImpl['recovery'] = null
      if (state.torn !== null) {
        const result = await c.backend.cut(token, state.torn.marker, { nextSeq: state.nextSeq, revision }, signal)
        revision = result.revision
        recovery = Object.freeze({ tornTail: state.torn.report })
        c.committed({
          sessionId: id, source: 'repair', fromSeq: result.nextSeq, toSeq: result.nextSeq, events: [], revision,
          physicalLength: result.physicalLength, ownerId: claim.owner.ownerId,
        })
        throwIfAborted(signal)
      }
      await c.backend.removeStaleTemps?.(token, signal)
      throwIfAborted(signal)
      return new HandleImpl(c, {
        id, mode: 'write', header: state.header, nextSeq: state.nextSeq, revision, incarnation: scan.incarnation,
        eventState: c.backend.eventState, recovery, retained: state.events, claim, token,
      })
    })
    claim.holder = handle
    return handle
  } catch (error) {
    await c.abandon(claim, token)
    throw error
  }
}

async function openRead(c: Coordinator, id: string, signal: AbortSignal): Promise<SessionHandle> {
  await c.ready
  throwIfAborted(signal)
  const scan = await c.serial(id, () => c.backend.scan(id, {}, signal))
  throwIfAborted(signal)
  if (scan === undefined) throw sessionNotFound(id)
  const state = readStored(id, scan, type => c.isKnownType(type))
  return new HandleImpl(c, {
    id, mode: 'read', header: state.header, nextSeq: state.nextSeq, revision: scan.revision,
    incarnation: scan.incarnation, eventState: c.backend.eventState,
    recovery: state.torn === null ? null : Object.freeze({ tornTail: state.torn.report }),
  })
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
  return new SessionPersistenceError('SESSION_ALREADY_EXISTS', `session "${id}" already exists`, { sessionId: id })
}

/** `create(header)`: checks header → claim → stored log → lock → stored log again (§1.1). */
export async function create(c: Coordinator, header: SessionHeader, opts?: OperationOptions): Promise<SessionHandle> {
  const signal = c.begin(opts)
  const frozen = createHeader(header)
  const pending = c.claim(frozen.id, 'handle')
  const claim: Claim = pending instanceof Promise ? await pending : pending
  let token: LockToken | undefined
  try {
    await c.ready
    throwIfAborted(signal)
    const handle = await c.serial(frozen.id, async () => {
      if (await c.backend.exists(frozen.id, signal)) throw alreadyExists(frozen.id)
      throwIfAborted(signal)
      token = await c.backend.lock(frozen.id, claim.owner, signal)
      throwIfAborted(signal)
      if (await c.backend.exists(frozen.id, signal)) throw alreadyExists(frozen.id)
      throwIfAborted(signal)
      return new HandleImpl(c, {
        id: frozen.id, mode: 'write', header: frozen, nextSeq: 0, revision: null, incarnation: undefined,
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
  await c.ready
  throwIfAborted(signal)
  const scan = await c.serial(id, () => c.backend.scan(id, fromSeq > 0 ? { fromSeq } : {}, signal))
  throwIfAborted(signal)
  if (scan === undefined) throw sessionNotFound(id)
  const state = readStored(id, scan, type => c.isKnownType(type))
  const skip = Math.max(0, fromSeq - state.startSeq)
  return frozenEvents(c, skip === 0 ? state.events : state.events.slice(skip))
}

/** `inspect(id)`: the stored view plus what a resume would append; commits nothing (§1.3). */
export async function inspect(c: Coordinator, id: string, opts?: OperationOptions): Promise<SessionInspection> {
  const signal = c.beginFor(opts, id)
  await c.ready
  throwIfAborted(signal)
  const scan = await c.serial(id, () => c.backend.scan(id, {}, signal))
  throwIfAborted(signal)
  if (scan === undefined) throw sessionNotFound(id)
  const state = readStored(id, scan, type => c.isKnownType(type))
  const events = frozenEvents(c, state.events)
  const closers = Object.freeze(openTurnClosers(events, { kind: 'interrupted' }))
  const last = closers.at(-1) as { data: { turn: number } } | undefined
  let claim: ClaimState = 'none'
  if (c.claims.get(id) !== undefined) {
    claim = 'this-process'
  } else {
    const lock = await c.serial(id, () => c.backend.readLock(id, signal))
    throwIfAborted(signal)
    if (lock !== undefined && !isHolderDead(lock.holder)) claim = 'other-process'
  }
  return Object.freeze({
    header: state.header,
    events,
    inheritedEventCount: state.header.isSeeded === true ? state.header.seedLength ?? 0 : 0,
    revision: scan.revision,
    tornTail: state.torn?.report ?? null,
    openTurn: last === undefined ? null : last.data.turn,
    closers,
    claim,
    ...(scan.location === undefined ? {} : { location: scan.location }),
  })
}
