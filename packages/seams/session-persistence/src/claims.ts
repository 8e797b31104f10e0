/**
 * In-process claims (spec 02 §3.1): one `Map<id, Claim>` per coordinator. A claim is registered synchronously before
 * any await, mints an owner id registered in the process-global set, and is released when its holder lets go.
 */
import type { LockOwner, LockToken } from './backend.ts'
import { claimLockedError, mintOwner, releaseOwner } from './owners.ts'
import type { ClaimKind, PersistenceClaimEvent } from './types.ts'

/** What holds a claim: a write handle or a live writer (delete/breakLock hold one with no holder). */
export interface ClaimHolder {
  /** The holder's durable cursor (checkpoints must stay below it). */
  readonly durableCursor: number
  /** The cross-process lock, once taken. */
  readonly lockToken: LockToken | undefined
}

/** One in-process claim. */
export interface Claim {
  readonly id: string
  kind: ClaimKind
  readonly owner: LockOwner
  holder: ClaimHolder | undefined
  /** Set by a handle's `handOff()`: the next binding of the id adopts that handle. */
  handedOff: ClaimHolder | undefined
  released: boolean
}

type Emit = (name: 'persistence/claimed' | 'persistence/released', event: PersistenceClaimEvent) => void

/** The claim table of one coordinator. */
export class ClaimTable {
  private readonly map = new Map<string, Claim>()

  constructor(private readonly emit: Emit) {}

  get(id: string): Claim | undefined {
    return this.map.get(id)
  }

  all(): Claim[] {
    return [...this.map.values()]
  }

  /** Register a claim now (no await). @throws `SESSION_LOCKED` `{ scope: 'in-process', kind }` when one exists. */
  register(id: string, kind: ClaimKind): Claim {
    const existing = this.map.get(id)
    if (existing !== undefined) throw claimLockedError(id, existing.kind)
    const claim: Claim = { id, kind, owner: mintOwner(), holder: undefined, handedOff: undefined, released: false }
    this.map.set(id, claim)
    this.emit('persistence/claimed', { sessionId: id, ownerId: claim.owner.ownerId, kind })
    return claim
  }

  /** Release `claim` (idempotent); a newer claim of the same id is left alone. */
  release(claim: Claim): void {
    if (claim.released) return
    claim.released = true
    if (this.map.get(claim.id) === claim) this.map.delete(claim.id)
    releaseOwner(claim.owner.ownerId)
    this.emit('persistence/released', { sessionId: claim.id, ownerId: claim.owner.ownerId, kind: claim.kind })
  }
}
