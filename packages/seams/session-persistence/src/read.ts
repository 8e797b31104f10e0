/**
 * Read paths (spec 02 §1.3, §4.5): `inspect`, `readFrom` and `locate`, and the scan every read shares. They take no
 * claim and write nothing; each hook call goes through the id's queue.
 */
import { deepFreeze, openTurnClosers, type SessionEvent } from '@logbook/session'
import { inheritedCount, readStored, type StoredState } from './classify.ts'
import { invalidArgument, sessionNotFound } from './errors.ts'
import type { Host } from './host.ts'
import { isHolderDead } from './owners.ts'
import { beginFor, isSeqArgument, throwIfAborted } from './prelude.ts'
import type { ClaimState, OperationOptions, SessionInspection } from './types.ts'
import { describe } from './util.ts'

/** Freeze events for a caller when the backend hands out fresh objects (memory events are frozen already). */
function frozenEvents(host: Host, events: readonly SessionEvent[]): readonly SessionEvent[] {
  // A plain array of the built events: a caller of `readFrom`/`inspect` gets a frozen array, not a view.
  const plain = events.slice()
  if (host.backend.eventState === 'detached') for (const event of plain) deepFreeze(event)
  return Object.freeze(plain)
}

/**
 * Scan `id` (from the record covering `fromSeq`) through its queue and run the §4.1 checks; takes nothing, writes
 * nothing. @throws `SESSION_NOT_FOUND`, and the §4.1 codes of `readStored`.
 */
export async function loadStored(host: Host, id: string, fromSeq: number, signal: AbortSignal): Promise<StoredState<unknown>> {
  await host.ready
  throwIfAborted(signal)
  const scan = await host.queue.run(id, () => host.backend.scan(id, fromSeq > 0 ? { fromSeq } : {}, signal))
  throwIfAborted(signal)
  if (scan === undefined) throw sessionNotFound(id)
  return readStored(id, scan, type => host.isKnownType(type))
}

/** `readFrom(id, fromSeq)`: deep-frozen valid events with `seq >= fromSeq` (§4.5). */
export async function readSessionFrom(host: Host, id: string, fromSeq: number, opts?: OperationOptions): Promise<readonly SessionEvent[]> {
  const signal = beginFor(host, opts, id)
  if (!isSeqArgument(fromSeq)) throw invalidArgument(`fromSeq must be a non-negative safe integer, got ${describe(fromSeq)}`, id)
  const state = await loadStored(host, id, fromSeq, signal)
  const skip = Math.max(0, fromSeq - state.startSeq)
  return frozenEvents(host, skip === 0 ? state.events : state.events.slice(skip))
}

/** `inspect(id)`: the stored view plus what a resume would append; commits nothing (§1.3). */
export async function inspectSession(host: Host, id: string, opts?: OperationOptions): Promise<SessionInspection> {
  const signal = beginFor(host, opts, id)
  const state = await loadStored(host, id, 0, signal)
  const events = frozenEvents(host, state.events)
  const closers = Object.freeze(openTurnClosers(events, { kind: 'interrupted' }))
  const turnEnd = closers.at(-1) as { readonly data: { readonly turn: number } } | undefined
  let claim: ClaimState = 'none'
  if (host.claims.get(id) !== undefined) {
    claim = 'this-process'
  } else {
    const lock = await host.queue.run(id, () => host.backend.readLock(id, signal))
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
    checksums: scan.checksums,
    ...(scan.location === undefined ? {} : { location: scan.location }),
  })
}

/** `locate(id)`: absolute path of the artifact, or `undefined`. */
export async function locateSession(host: Host, id: string, opts?: OperationOptions): Promise<string | undefined> {
  const signal = beginFor(host, opts, id)
  await host.ready
  throwIfAborted(signal)
  return host.queue.run(id, () => host.backend.locate(id, signal))
}
