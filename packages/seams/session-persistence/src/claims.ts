/**
 * In-process claims (spec 02 §3.1): one `Map<id, Claim>` per coordinator. A claim is registered synchronously before
 * any await, mints an owner id registered in the process-global set, and is released when its holder lets go. A
 * claimant meeting a retiring live writer waits for its last attempt first (§2.5).
 */
import type { LockOwner, LockToken } from './backend.ts'
import { claimLockedError, mintOwner, releaseOwner } from './owners.ts'
import type { ClaimKind, PersistenceClaimEvent } from './types.ts'

/** What holds a claim: a write handle or a live writer (delete/breakLock hold one with no holder). */
export interface ClaimHolder {
  /** The holder's durable cursor: a projection checkpoint must stay below it. */
  readonly nextSeq: number
  /** The cross-process lock, once taken. */
  readonly token: LockToken | undefined
}

/** A live writer whose session was disposed: it flushes, then releases its claim (§2.5). */
export interface RetiringWriter extends ClaimHolder {
  /** Resolves once its in-flight (or one immediate) attempt settled and, when it finished, its release too. */
  drain(): Promise<void>
  /** Its last write error (the `cause` of `SESSION_LOCKED` `retiring` when it still holds the id). */
  readonly lastError: unknown
}

/** One in-process claim. */
export interface Claim {
  readonly id: string
  kind: ClaimKind
  readonly owner: LockOwner
  holder: ClaimHolder | undefined
  /** Set by a handle's `handOff()`: the next binding of the id adopts that handle. */
  handedOff: ClaimHolder | undefined
  /** Set while a live writer retires (`kind` is then `'retiring'`): claimants wait for it. */
  retiring: RetiringWriter | undefined
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
    const claim: Claim = { id, kind, owner: mintOwner(), holder: undefined, handedOff: undefined, retiring: undefined, released: false }
    this.map.set(id, claim)
    this.emit('persistence/claimed', { sessionId: id, ownerId: claim.owner.ownerId, kind })
    return claim
  }

  /**
   * Register a claim synchronously, or, when a retiring live writer holds the id, after its in-flight attempt
   * (§2.5): drained → the claim, else `SESSION_LOCKED` `retiring`. @throws `SESSION_LOCKED`.
   */
  claim(id: string, kind: 'handle'): Claim | Promise<Claim> {
    const retiring = this.map.get(id)?.retiring
    if (retiring !== undefined) return retiring.drain().then(() => this.afterRetirement(id, retiring, kind))
    return this.register(id, kind)
  }

  /** The claim of a claimant that waited for `retiring`; `SESSION_LOCKED` (cause: its last write error) if it still holds. */
  afterRetirement(id: string, retiring: RetiringWriter, kind: ClaimKind): Claim {
    const now = this.map.get(id)
    if (now !== undefined) {
      throw claimLockedError(id, now.kind, now.holder === retiring ? retiring.lastError : undefined)
    }
    return this.register(id, kind)
  }

  /** The live writer holding `claim` retires (§2.5): later claimants wait for it. */
  retire(claim: Claim, writer: RetiringWriter): void {
    claim.kind = 'retiring'
    claim.retiring = writer
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
