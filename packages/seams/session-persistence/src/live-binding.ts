/**
 * The asynchronous half of binding a live session (spec 02 §2.1): adopt a handed-off handle (case 1), fail on a
 * foreign claim (case 2, after waiting for a retiring holder), or take the lock and scan (case 3: lazy, or adopt the
 * stored prefix after cutting a torn tail without closers).
 */
import type { Session } from '@logbook/session'
import type { LockToken } from './backend.ts'
import type { Claim, ClaimHolder } from './claims.ts'
import { readStored } from './classify.ts'
import { SessionPersistenceError } from './errors.ts'
import type { HandleImpl } from './handle.ts'
import type { LiveWriter, WriterHost } from './live-writer.ts'
import { cutTornTail } from './repair.ts'
import { about, assertNever, describe, losslessEqual, NEVER_ABORTED } from './util.ts'

/** How the binding resolved the claim, synchronously inside `session/created` (§2.1). */
export type Binding =
  | { readonly kind: 'adopt'; readonly claim: Claim; readonly handle: HandleImpl }
  | { readonly kind: 'locked'; readonly error: SessionPersistenceError }
  | { readonly kind: 'wait-retiring'; readonly writer: LiveWriter }
  | { readonly kind: 'fresh'; readonly claim: Claim }

/** The writer fields init sets. */
export interface BoundState extends ClaimHolder {
  readonly id: string
  readonly session: Session
  claim: Claim | undefined
  token: LockToken | undefined
  cursor: number
  revision: string | null
  /** No artifact yet: the first batch materialises header and events. */
  lazy: boolean
}

function conflict(id: string, detail: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_CONFLICT', about(id) + detail, { sessionId: id })
}

/** Run the binding's init for `state`. @throws the terminal error of the binding. */
export async function initBinding(host: WriterHost, state: BoundState, binding: Binding): Promise<void> {
  await host.ready
  switch (binding.kind) {
    case 'locked':
      throw binding.error
    case 'adopt':
      return adoptHandle(state, binding.handle)
    case 'wait-retiring': {
      await binding.writer.drain()
      const claim = host.claimAfterRetirement(state.id, binding.writer, 'live-session')
      state.claim = claim
      claim.holder = state
      return bindFresh(host, state, claim)
    }
    case 'fresh':
      return bindFresh(host, state, binding.claim)
    default:
      return assertNever(binding)
  }
}

/** Case 1: take over the handle's lock, cursor and revision once the live log extends what it stored. */
async function adoptHandle(state: BoundState, handle: HandleImpl): Promise<void> {
  await handle.idle()
  state.token = handle.token
  state.cursor = handle.nextSeq
  state.revision = handle.revision
  state.lazy = handle.revision === null
  const { session, id, cursor } = state
  if (!losslessEqual(session.header, handle.header)) throw conflict(id, 'the live header differs from the stored header')
  if (session.seq < cursor) throw conflict(id, `the live log has ${session.seq} events; ${cursor} are stored`)
  if (cursor > 0) {
    const live = session.events[cursor - 1]
    if (live !== handle.lastEvent && !losslessEqual(live, handle.lastEvent)) {
      throw conflict(id, `the live event at seq ${cursor - 1} differs from the stored one`)
    }
  }
}

/** Case 3: lock, scan; no artifact → lazy; a stored prefix of the live log → adopt (cutting a torn tail). */
async function bindFresh(host: WriterHost, state: BoundState, claim: Claim): Promise<void> {
  const { backend } = host
  const { id, session } = state
  const token = await host.serial(id, () => backend.lock(id, claim.owner, NEVER_ABORTED))
  state.token = token
  try {
    const scan = await host.serial(id, () => backend.scan(id, {}, NEVER_ABORTED))
    if (scan === undefined) {
      state.lazy = true
      return
    }
    const stored = readStored(id, scan, type => host.isKnownType(type))
    const n = stored.nextSeq
    if (!losslessEqual(stored.header, session.header) || n > session.seq
      || (n > 0 && !losslessEqual(stored.events[n - 1], session.events[n - 1]))) {
      throw new SessionPersistenceError('SESSION_ALREADY_EXISTS', `${about(id)}a stored log exists that the live session does not extend`, {
        sessionId: id,
        ...(scan.location === undefined ? {} : { location: scan.location }),
      })
    }
    state.revision = scan.revision
    if (stored.torn !== null) {
      // Without closers: the live session writes the real ending of an open turn (§2.1 case 3).
      state.revision = (await host.serial(id, () => cutTornTail(host, id, token, stored, claim.owner.ownerId, NEVER_ABORTED))).revision
    }
    state.cursor = n
  } catch (error) {
    state.token = undefined
    await host.serial(id, () => backend.unlock(token, NEVER_ABORTED)).catch((unlockError: unknown) => {
      host.logger.warn(`${about(id)}releasing the lock failed: ${describe(unlockError)}`)
    })
    throw error
  }
}
