/**
 * Store-level public operations (spec 02 §1.1, §1.3, §1.6): `list`, `delete`, `breakLock`, `locate` and the
 * projection checkpoint pair.
 */
import { deepFreeze, isJsonValue, snapshotJsonValue } from '@logbook/session'
import type { BackendListQuery } from './backend.ts'
import type { Coordinator } from './coordinator.ts'
import { SessionPersistenceError } from './errors.ts'
import { decodeCursor, encodeCursor, filterHash } from './list-order.ts'
import { lockedScan } from './operations.ts'
import type {
  BreakLockConfirmation,
  DeleteConfirmation,
  DeleteResult,
  ListPage,
  ListQuery,
  OperationOptions,
  ProjectionCheckpoint,
} from './types.ts'
import { about, describe, invalidArgument, throwIfAborted } from './util.ts'

const LIST_KEYS: ReadonlySet<string> = new Set(['cwd', 'parentSession', 'updatedAfter', 'limit', 'cursor'])
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Validate a `ListQuery` and decode its cursor. @throws `INVALID_ARGUMENT`. */
function listQuery(query: ListQuery | undefined): { backend: BackendListQuery; hash: string; first: boolean } {
  const q: Record<string, unknown> = query === undefined ? {} : (query as unknown as Record<string, unknown>)
  if (!isPlainObject(q)) throw invalidArgument('list query must be an object')
  for (const key of Object.keys(q)) {
    if (!LIST_KEYS.has(key) && q[key] !== undefined) throw invalidArgument(`unknown list query key "${key}"`)
  }
  const { cwd, parentSession, updatedAfter, limit = 50, cursor } = q
  if (cwd !== undefined && typeof cwd !== 'string') throw invalidArgument('list query cwd must be a string')
  if (parentSession !== undefined && parentSession !== null && typeof parentSession !== 'string') {
    throw invalidArgument('list query parentSession must be a string or null')
  }
  if (updatedAfter !== undefined && !Number.isSafeInteger(updatedAfter)) {
    throw invalidArgument('list query updatedAfter must be a safe integer')
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw invalidArgument(`list limit must be an integer from 1 to 500, got ${describe(limit)}`)
  }
  if (cursor !== undefined && typeof cursor !== 'string') throw invalidArgument('list cursor must be a string')
  const filters = {
    ...(cwd === undefined ? {} : { cwd }),
    ...(parentSession === undefined ? {} : { parentSession: parentSession as string | null }),
    ...(updatedAfter === undefined ? {} : { updatedAfter: updatedAfter as number }),
  }
  const hash = filterHash(filters)
  const after = cursor === undefined ? undefined : decodeCursor(cursor, hash)
  return { backend: { ...filters, limit, ...(after === undefined ? {} : { after }) }, hash, first: after === undefined }
}

/** `list(query)`: one page, newest first; problems on the first page only (§1.3). */
export async function list(c: Coordinator, query: ListQuery | undefined, opts?: OperationOptions): Promise<ListPage> {
  const signal = c.begin(opts)
  const { backend, hash, first } = listQuery(query)
  await c.ready
  throwIfAborted(signal)
  const result = await c.backend.list(backend, signal)
  throwIfAborted(signal)
  const items = [...result.items]
  const last = items.at(-1)
  return {
    items,
    nextCursor: result.hasMore && last !== undefined ? encodeCursor(last, hash) : null,
    problems: first ? [...result.problems] : [],
  }
}

function notConfirmed(id: string): SessionPersistenceError {
  return new SessionPersistenceError(
    'DELETE_NOT_CONFIRMED',
    `${about(id)}delete requires exactly { confirm: 'delete-session', sessionId, revision }`,
    { sessionId: id },
  )
}

/** `delete(id, confirmation)`: exact confirmation → claim → lock → current revision → remove (§1.1). */
export async function remove(c: Coordinator, id: string, confirmation: DeleteConfirmation, opts?: OperationOptions): Promise<DeleteResult> {
  const signal = c.beginFor(opts, id)
  const conf = confirmation as unknown
  if (!isPlainObject(conf) || Object.keys(conf).length !== 3 || conf.confirm !== 'delete-session'
    || conf.sessionId !== id || typeof conf.revision !== 'string') {
    throw notConfirmed(id)
  }
  const revision = conf.revision
  const { claim, result } = await lockedScan(c, id, signal, async (_claim, lock, scan) => {
    if (scan.revision !== revision) {
      throw new SessionPersistenceError('SESSION_CONFLICT', `${about(id)}revision ${revision} is not current`, {
        sessionId: id,
        details: { expected: revision, actual: scan.revision },
      })
    }
    throwIfAborted(signal)
    const removed = await c.backend.remove(lock.token!, revision, signal)
    lock.token = undefined // the backend removed the lock with the log
    return removed
  })
  c.claims.release(claim)
  return Object.freeze({ sessionId: id, ...(result.location === undefined ? {} : { location: result.location }) })
}

/** `breakLock(id, { ownerId, confirm })`: remove another owner's cross-process lock (§1.1). */
export async function breakLock(c: Coordinator, id: string, confirmation: BreakLockConfirmation, opts?: OperationOptions): Promise<void> {
  const signal = c.beginFor(opts, id)
  const conf = confirmation as unknown
  if (!isPlainObject(conf) || conf.confirm !== 'break-lock' || (conf.ownerId !== null && typeof conf.ownerId !== 'string')) {
    throw invalidArgument(`breakLock requires { ownerId, confirm: 'break-lock' }`, id)
  }
  const ownerId = conf.ownerId
  const claim = await c.claim(id, 'handle')
  try {
    await c.ready
    throwIfAborted(signal)
    await c.serial(id, () => c.backend.breakLock(id, ownerId, signal))
  } finally {
    c.claims.release(claim)
  }
}

/** `locate(id)`: absolute path of the artifact, or `undefined`. */
export async function locate(c: Coordinator, id: string, opts?: OperationOptions): Promise<string | undefined> {
  const signal = c.beginFor(opts, id)
  await c.ready
  throwIfAborted(signal)
  return c.serial(id, () => c.backend.locate(id, signal))
}

/** `readProjectionCheckpoint(id)`: the checkpoint while its `seq` is below the durable cursor (§1.6). */
export async function readCheckpoint(c: Coordinator, id: string, opts?: OperationOptions): Promise<ProjectionCheckpoint | undefined> {
  const signal = c.beginFor(opts, id)
  await c.ready
  throwIfAborted(signal)
  const checkpoint = await c.serial(id, () => c.backend.readCheckpoint(id, signal))
  throwIfAborted(signal)
  const holder = c.claims.get(id)?.holder
  if (checkpoint !== undefined && holder !== undefined && checkpoint.seq >= holder.durableCursor) return undefined
  return checkpoint
}

const CHECKPOINT_KEYS = ['anchor', 'rows', 'seq', 'sessionId']

/** `writeProjectionCheckpoint(id, cp)`: arguments → claim → cursor → atomic replace (§1.6). */
export async function writeCheckpoint(c: Coordinator, id: string, checkpoint: ProjectionCheckpoint, opts?: OperationOptions): Promise<void> {
  const signal = c.beginFor(opts, id)
  const cp = checkpoint as unknown
  if (!isPlainObject(cp) || Object.keys(cp).sort().join() !== CHECKPOINT_KEYS.join()) {
    throw invalidArgument('a projection checkpoint is exactly { sessionId, seq, anchor, rows }', id)
  }
  if (cp.sessionId !== id) throw invalidArgument(`checkpoint sessionId ${describe(cp.sessionId)} does not match`, id)
  const seq = cp.seq
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw invalidArgument('checkpoint seq must be a non-negative safe integer', id)
  }
  if (!isJsonValue(cp)) throw invalidArgument('the checkpoint is not lossless JSON', id)
  const claim = c.claims.get(id)
  const holder = claim?.holder
  const token = holder?.lockToken
  if (claim === undefined || holder === undefined || token === undefined) {
    throw new SessionPersistenceError('SESSION_LOCKED', `${about(id)}the session is not claimed by this coordinator`, { sessionId: id })
  }
  if (seq >= holder.durableCursor) {
    throw new SessionPersistenceError(
      'CHECKPOINT_AHEAD',
      `${about(id)}checkpoint seq ${seq} is not below the durable cursor ${holder.durableCursor}`,
      { sessionId: id, details: { seq, cursor: holder.durableCursor } },
    )
  }
  const frozen = deepFreeze(snapshotJsonValue(cp) as unknown as ProjectionCheckpoint)
  await c.ready
  throwIfAborted(signal)
  await c.serial(id, () => c.backend.writeCheckpoint(token, id, frozen, signal))
}
