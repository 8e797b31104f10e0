/**
 * Write ownership of one stored id for a public operation (spec 02 §3): claim it (at once, or after a retiring live
 * writer drained), take the cross-process lock and scan — `lockedScan`, shared by `open(id, 'write')` and `delete`;
 * `withWriteOwnership` for repair and migrate, which give both up when done —, give both up after a failure
 * (`abandon`), and `breakLock`, which removes another owner's lock under a claim.
 */
import type { LockToken, PhysicalScan } from './backend.ts'
import type { Claim } from './claims.ts'
import { about, invalidArgument, sessionNotFound } from './errors.ts'
import type { Host } from './host.ts'
import { beginFor, isPlainObject, NEVER_ABORTED, throwIfAborted } from './prelude.ts'
import type { BreakLockConfirmation, OperationOptions } from './types.ts'
import { describe } from './util.ts'

/** A write operation's cross-process lock; `token` is cleared when the backend dropped the lock itself. */
export interface HeldLock {
  token: LockToken | undefined
}

/** Release the lock (best effort) and the claim after a failed operation. */
export async function abandon(host: Host, claim: Claim, token: LockToken | undefined): Promise<void> {
  if (token !== undefined) {
    await host.queue.run(claim.id, () => host.backend.unlock(token, NEVER_ABORTED)).catch((error: unknown) => {
      host.logger.warn(`${about(claim.id)}releasing the lock failed: ${describe(error)}`)
    })
  }
  host.claims.release(claim)
}

/**
 * Claim `id`, then in its queue take the lock and scan, and run `body` with the claim, the lock and the scan. On any
 * failure the claim and a lock still held are given up; on success the caller owns both and gets the claim back.
 * Call it without awaiting anything first, so the claim is registered synchronously.
 * @throws `SESSION_NOT_FOUND` when nothing is stored, and whatever `body` or the backend throw.
 */
export async function lockedScan<T>(
  host: Host,
  id: string,
  signal: AbortSignal,
  body: (claim: Claim, lock: HeldLock, scan: PhysicalScan<unknown>) => Promise<T>,
): Promise<{ readonly claim: Claim; readonly result: T }> {
  const claim = await host.claims.claim(id, 'handle') // registered before this await (or after a retiring holder drained)
  const lock: HeldLock = { token: undefined }
  const { backend } = host
  try {
    await host.ready
    throwIfAborted(signal)
    const result = await host.queue.run(id, async () => {
      lock.token = await backend.lock(id, claim.owner, signal)
      throwIfAborted(signal)
      const scan = await backend.scan(id, {}, signal)
      if (scan === undefined) throw sessionNotFound(id)
      return body(claim, lock, scan)
    })
    return { claim, result }
  } catch (error) {
    await abandon(host, claim, lock.token)
    throw error
  }
}

/**
 * `lockedScan` for a maintenance operation (repair, migrate) that gives claim and lock up again when `body` is done,
 * whatever its outcome. @throws what `lockedScan` throws.
 */
export async function withWriteOwnership<T>(
  host: Host,
  id: string,
  signal: AbortSignal,
  body: (claim: Claim, lock: HeldLock, scan: PhysicalScan<unknown>) => Promise<T>,
): Promise<T> {
  let held: HeldLock | undefined
  const { claim, result } = await lockedScan(host, id, signal, (claim, lock, scan) => {
    held = lock
    return body(claim, lock, scan)
  })
  await abandon(host, claim, held?.token)
  return result
}

/** `breakLock(id, { ownerId, confirm })`: remove another owner's cross-process lock, under a claim (§1.1). */
export async function breakLock(host: Host, id: string, confirmation: BreakLockConfirmation, opts?: OperationOptions): Promise<void> {
  const signal = beginFor(host, opts, id)
  const conf = confirmation as unknown
  if (!isPlainObject(conf) || conf.confirm !== 'break-lock' || (conf.ownerId !== null && typeof conf.ownerId !== 'string')) {
    throw invalidArgument(`breakLock requires { ownerId, confirm: 'break-lock' }`, id)
  }
  const ownerId = conf.ownerId
  const claim = await host.claims.claim(id, 'handle')
  try {
    await host.ready
    throwIfAborted(signal)
    await host.queue.run(id, () => host.backend.breakLock(id, ownerId, signal))
  } finally {
    host.claims.release(claim)
  }
}
