/**
 * The asynchronous half of binding a live session (spec 02 §2.1): adopt a handed-off handle (case 1), fail on a
 * foreign claim (case 2, after waiting for a retiring holder), or take the lock and scan (case 3: lazy, or adopt the
 * stored prefix — every stored event equal to the live one — after cutting a torn tail without closers).
 */
import { jsonEqual, type Session, type SessionEvent } from '@logbook/session'
import type { CommitResult, LockToken } from './backend.ts'
import type { Claim, ClaimHolder, RetiringWriter } from './claims.ts'
import { readStored } from './classify.ts'
import { about, SessionPersistenceError } from './errors.ts'
import type { Handover } from './handle.ts'
import type { Host } from './host.ts'
import { NEVER_ABORTED } from './prelude.ts'
import { cutTornTail } from './repair.ts'
import { assertNever, describe } from './util.ts'

/** How the binding resolved the claim, synchronously inside `session/created` (§2.1). */
export type Binding =
  | { readonly kind: 'adopt'; readonly claim: Claim; readonly handover: Promise<Handover> }
  | { readonly kind: 'locked'; readonly error: SessionPersistenceError }
  | { readonly kind: 'wait-retiring'; readonly writer: RetiringWriter }
  | { readonly kind: 'fresh'; readonly claim: Claim }

/** The writer's view of its stored session, which the binding sets. */
export interface BoundState {
  claim: Claim | undefined
  token: LockToken | undefined
  /** The durable cursor. */
  cursor: number
  /** The revision the binding found; what an append expects until the writer's first commit (`last` after it). */
  revision: string | null
  /**
   * The result of the writer's last commit, whose `nextSeq` is the cursor: passed back as the next append's `expect`
   * so a backend can recognise its own result without reading (or computing) the revision; `revision` is then stale.
   */
  last: CommitResult | undefined
  /** No artifact yet: the first batch materialises header and events. */
  lazy: boolean
}

/**
 * True iff every stored event equals the live event at its seq (lossless-equal): the whole prefix, not only its last
 * event, since a live log that differs earlier would put later appends after a history the model never saw.
 */
function isStoredPrefix(stored: readonly SessionEvent[], session: Session): boolean {
  const live = session.events
  for (let i = 0; i < stored.length; i++) {
    const event = live[i]
    if (event !== stored[i] && !jsonEqual(stored[i], event)) return false
  }
  return true
}

function conflict(id: string, detail: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_CONFLICT', about(id) + detail, { sessionId: id })
}

/**
 * Run the binding's init for the writer `holder` of `session`, setting `state`. A claim the init registers names
 * `holder` as its holder. @throws the terminal error of the binding.
 */
export async function initBinding(host: Host, session: Session, holder: ClaimHolder, state: BoundState, binding: Binding): Promise<void> {
  await host.ready
  switch (binding.kind) {
    case 'locked':
      throw binding.error
    case 'adopt':
      return adoptHandle(session, state, await binding.handover)
    case 'wait-retiring': {
      await binding.writer.drain()
      const claim = host.claims.afterRetirement(session.id, binding.writer, 'live-session')
      state.claim = claim
      claim.holder = holder
      return bindFresh(host, session, state, claim)
    }
    case 'fresh':
      return bindFresh(host, session, state, binding.claim)
    default:
      return assertNever(binding)
  }
}

/** Case 1: take over the handle's lock, cursor and revision once the live log extends what it stored. */
function adoptHandle(session: Session, state: BoundState, handover: Handover): void {
  state.token = handover.token
  state.cursor = handover.nextSeq
  state.revision = handover.revision
  state.lazy = handover.revision === null
  const { id } = session
  const { cursor } = state
  if (!jsonEqual(session.header, handover.header)) throw conflict(id, 'the live header differs from the stored header')
  if (session.seq < cursor) throw conflict(id, `the live log has ${session.seq} events; ${cursor} are stored`)
  if (cursor > 0) {
    const live = session.events[cursor - 1]
    if (live !== handover.lastEvent && !jsonEqual(live, handover.lastEvent)) {
      throw conflict(id, `the live event at seq ${cursor - 1} differs from the stored one`)
    }
  }
}

/** Case 3: lock, scan; no artifact → lazy; a stored prefix of the live log → adopt (cutting a torn tail). */
async function bindFresh(host: Host, session: Session, state: BoundState, claim: Claim): Promise<void> {
  const { backend, queue } = host
  const { id } = session
  const token = await queue.run(id, () => backend.lock(id, claim.owner, NEVER_ABORTED))
  state.token = token
  try {
    const scan = await queue.run(id, () => backend.scan(id, {}, NEVER_ABORTED))
    if (scan === undefined) {
      state.lazy = true
      return
    }
    const stored = readStored(id, scan, type => host.isKnownType(type))
    const n = stored.nextSeq
    if (!jsonEqual(stored.header, session.header) || n > session.seq || !isStoredPrefix(stored.events, session)) {
      throw new SessionPersistenceError('SESSION_ALREADY_EXISTS', `${about(id)}a stored log exists that the live session does not extend`, {
        sessionId: id,
        ...(scan.location === undefined ? {} : { location: scan.location }),
      })
    }
    state.revision = scan.revision
    if (stored.torn !== null) {
      // Without closers: the live session writes the real ending of an open turn (§2.1 case 3).
      state.revision = (await queue.run(id, () => cutTornTail(host, id, token, stored, claim.owner.ownerId, NEVER_ABORTED))).revision
    }
    state.cursor = n
  } catch (error) {
    state.token = undefined
    await queue.run(id, () => backend.unlock(token, NEVER_ABORTED)).catch((unlockError: unknown) => {
      host.logger.warn(`${about(id)}releasing the lock failed: ${describe(unlockError)}`)
    })
    throw error
  }
}
